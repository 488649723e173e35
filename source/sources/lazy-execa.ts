/**
 * execa, loaded on first use. Its bundle chunk (execa and its dependencies, ~450 KB of source)
 * cost several MB of resident memory in a monitor that, on Linux, runs no command at all while it
 * watches an idle engine: every caller here asks for it when it is about to run one (macOS `ps`,
 * `sysctl`, `pmset`; `nvidia-smi` where it is installed; `cmd:` logs; `ollama ps`).
 */
type Execa = typeof import('execa').execa;

let loading: Promise<Execa> | undefined;

export function loadExeca(): Promise<Execa> {
	loading ??= import('execa').then(m => m.execa);
	return loading;
}
