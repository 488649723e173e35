/**
 * A llama.cpp imitation in its own process (test/helpers/fake-engines.ts, the real captures), run
 * as `llama-server …` so discovery finds it by its process name: started through a symlink named
 * `llama-server` to this node binary, whose name the kernel takes as the command name (comm).
 * Arguments: --port N and whatever else the test puts on its command line (`--log-file PATH`).
 */
import {startFake} from './fake-engines.js';

const at = process.argv.indexOf('--port');
const port = at >= 0 ? Number(process.argv[at + 1]) : 0;
const fake = await startFake('llamacpp', {port});
process.stdout.write(`listening ${fake.port}\n`);
const stop = () => void fake.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
