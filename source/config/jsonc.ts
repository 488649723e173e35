/**
 * A small JSONC parser that keeps the position of every value, so a config problem can be
 * reported as `config.json:7:14: refresh: expected 250..10000 ms`. JSON.parse gives neither
 * key positions nor (on Node 20) a line/column for syntax errors.
 *
 * Accepted: strict JSON plus `//` line comments, `/* … *\/` block comments, trailing commas
 * and a leading byte-order mark. Nothing else (no single quotes, no unquoted keys).
 */

export interface Position {
	/** 1-based. */
	readonly line: number;
	/** 1-based, in UTF-16 code units as editors count them for BMP text. */
	readonly col: number;
}

export type JsonNode =
	| (Position & {readonly kind: 'object'; readonly entries: readonly JsonEntry[]})
	| (Position & {readonly kind: 'array'; readonly items: readonly JsonNode[]})
	| (Position & {readonly kind: 'string'; readonly value: string})
	| (Position & {readonly kind: 'number'; readonly value: number})
	| (Position & {readonly kind: 'boolean'; readonly value: boolean})
	| (Position & {readonly kind: 'null'; readonly value: null});

export interface JsonEntry {
	readonly key: string;
	readonly keyPos: Position;
	readonly value: JsonNode;
}

export interface JsoncSyntaxError extends Position {
	readonly message: string;
}

export type JsoncResult = {readonly ok: true; readonly node: JsonNode} | {readonly ok: false; readonly error: JsoncSyntaxError};

class Fail extends Error {
	constructor(
		message: string,
		readonly at: number,
	) {
		super(message);
	}
}

/** Deepest nesting of objects/arrays accepted; a config is a few levels deep, never thousands. */
export const MAX_JSONC_DEPTH = 64;

const describe = (ch: string | undefined): string => (ch === undefined ? 'end of file' : JSON.stringify(ch));

export function parseJsonc(input: string): JsoncResult {
	const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
	// Line starts, for offset → line/column.
	const lineStarts = [0];
	for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
	const posOf = (offset: number): Position => {
		let lo = 0;
		let hi = lineStarts.length - 1;
		while (lo < hi) {
			const mid = (lo + hi + 1) >> 1;
			if (lineStarts[mid]! <= offset) lo = mid;
			else hi = mid - 1;
		}
		return {line: lo + 1, col: offset - lineStarts[lo]! + 1};
	};
	let i = 0;
	let depth = 0;

	const wordAt = (at: number): string => {
		const word = /^[^\s,:{}[\]"]{1,20}/.exec(text.slice(at, at + 20))?.[0];
		return word ? JSON.stringify(word) : describe(text[at]);
	};

	const skip = (): void => {
		for (;;) {
			const ch = text[i];
			if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') i++;
			else if (ch === '/' && text[i + 1] === '/') {
				while (i < text.length && text[i] !== '\n') i++;
			} else if (ch === '/' && text[i + 1] === '*') {
				const end = text.indexOf('*/', i + 2);
				if (end < 0) throw new Fail('unterminated /* comment', i);
				i = end + 2;
			} else return;
		}
	};

	const parseString = (): string => {
		const start = i;
		i++; // opening quote
		let out = '';
		for (;;) {
			const ch = text[i];
			if (ch === undefined || ch === '\n') throw new Fail('unterminated string', start);
			if (ch === '"') {
				i++;
				return out;
			}
			if (ch < ' ') throw new Fail('control character in string', i);
			if (ch === '\\') {
				const esc = text[i + 1];
				const simple: Record<string, string> = {'"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t'};
				if (esc !== undefined && esc in simple) {
					out += simple[esc];
					i += 2;
				} else if (esc === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
					out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
					i += 6;
				} else throw new Fail(`bad escape \\${esc ?? ''} in string`, i);
			} else {
				out += ch;
				i++;
			}
		}
	};

	const enter = (): void => {
		depth += 1;
		if (depth > MAX_JSONC_DEPTH) throw new Fail(`nested more than ${MAX_JSONC_DEPTH} levels deep`, i);
	};

	const parseValue = (): JsonNode => {
		skip();
		const at = i;
		const pos = posOf(at);
		const ch = text[i];
		if (ch === '{' || ch === '[') {
			enter();
			try {
				return ch === '{' ? parseObject(pos) : parseArray(pos);
			} finally {
				depth -= 1;
			}
		}
		return parseScalar(at, pos);
	};

	const parseObject = (pos: Position): JsonNode => {
		{
			i++;
			const entries: JsonEntry[] = [];
			skip();
			if (text[i] === '}') {
				i++;
				return {kind: 'object', entries, ...pos};
			}
			for (;;) {
				skip();
				if (text[i] !== '"') throw new Fail(`expected a "quoted" key, found ${wordAt(i)}`, i);
				const keyPos = posOf(i);
				const key = parseString();
				skip();
				if (text[i] !== ':') throw new Fail(`expected ':' after key "${key}", found ${describe(text[i])}`, i);
				i++;
				const value = parseValue();
				entries.push({key, keyPos, value});
				skip();
				if (text[i] === ',') {
					i++;
					skip();
					if (text[i] === '}') {
						i++;
						return {kind: 'object', entries, ...pos};
					}
					continue;
				}
				if (text[i] === '}') {
					i++;
					return {kind: 'object', entries, ...pos};
				}
				throw new Fail(`expected ',' or '}', found ${describe(text[i])}`, i);
			}
		}
	};

	const parseArray = (pos: Position): JsonNode => {
		{
			i++;
			const items: JsonNode[] = [];
			skip();
			if (text[i] === ']') {
				i++;
				return {kind: 'array', items, ...pos};
			}
			for (;;) {
				items.push(parseValue());
				skip();
				if (text[i] === ',') {
					i++;
					skip();
					if (text[i] === ']') {
						i++;
						return {kind: 'array', items, ...pos};
					}
					continue;
				}
				if (text[i] === ']') {
					i++;
					return {kind: 'array', items, ...pos};
				}
				throw new Fail(`expected ',' or ']', found ${describe(text[i])}`, i);
			}
		}
	};

	const parseScalar = (at: number, pos: Position): JsonNode => {
		const ch = text[i];
		if (ch === '"') return {kind: 'string', value: parseString(), ...pos};
		const num = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
		if (num && (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9'))) {
			i += num[0].length;
			return {kind: 'number', value: Number(num[0]), ...pos};
		}
		for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
			if (text.startsWith(word, i) && !/[\w$]/.test(text[i + word.length] ?? '')) {
				i += word.length;
				return value === null ? {kind: 'null', value, ...pos} : {kind: 'boolean', value, ...pos};
			}
		}
		if (ch === undefined) throw new Fail('expected a value, found end of file', at);
		throw new Fail(`unexpected ${wordAt(i)} (strings need "double quotes")`, at);
	};

	try {
		const node = parseValue();
		skip();
		if (i < text.length) throw new Fail(`unexpected ${describe(text[i])} after the top-level value`, i);
		return {ok: true, node};
	} catch (error) {
		if (error instanceof Fail) return {ok: false, error: {message: error.message, ...posOf(Math.min(error.at, text.length))}};
		throw error;
	}
}

/** The plain value of a node (what JSON.parse would give). */
export function plain(node: JsonNode): unknown {
	switch (node.kind) {
		case 'object':
			return Object.fromEntries(node.entries.map((e) => [e.key, plain(e.value)]));
		case 'array':
			return node.items.map(plain);
		default:
			return node.value;
	}
}
