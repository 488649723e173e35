/**
 * scanUvicorn reads the common uvicorn access line by hand (issue 32: no match array, no port and
 * status strings a request on a busy vLLM or SGLang log). Where it answers, it must be UVICORN's
 * answer exactly; where it does not, parseUvicorn reads the line with UVICORN as before. On every
 * access line of the logs we ship, on seeded mutations of them, and on made lines of every form
 * (IPv6 and bracketed clients, odd prefixes, paths with odd characters, short statuses).
 */
import {describe, expect, it} from 'vitest';
import {parseUvicorn, scanUvicorn, UVICORN} from '../../source/engines/answers.js';
import {logCorpus, mutate, prng} from '../helpers/fuzz.js';

/** What the regex alone gives (parseUvicorn before the hand read). */
function viaRegex(line: string): unknown {
	if (!line.includes('INFO:') || !line.includes('" ')) return undefined;
	const m = UVICORN.exec(line);
	if (!m) return undefined;
	return {type: 'http', client: m[1]!, method: m[3]!, path: m[4]!, status: Number(m[5])};
}

/** The usual form (the first) most of the time, any other now and then. */
const PICK = <T>(r: () => number, xs: readonly T[]): T => (r() < 0.7 ? xs[0]! : xs[Math.floor(r() * xs.length)]!);

function made(r: () => number): string {
	const prefix = PICK(r, ['', '(APIServer pid=4242) ', '(APIServer pid=1)', '(a) (b) ', '()', '(x']);
	const info = PICK(r, ['INFO:     ', 'INFO: ', 'INFO:', 'WARNING:  ']);
	const client = PICK(r, ['127.0.0.1', '10.0.0.12', '...', '1', '[::1]', '::1', 'fe80::1', '127.0.0.1:80', '12a.0.0.1', '', '１２７.0.0.1']);
	const port = PICK(r, ['40000', '1', '', '4x', '65535']);
	const method = PICK(r, ['POST', 'GET', 'HEAD', 'post', '', 'PO ST']);
	const path = PICK(r, ['/v1/chat/completions', '/health', '/v1/models?x=1', '/a\tb', '/a\u00a0b', '/a b', '', '/a"b', '/ HTTP/x']);
	const version = PICK(r, ['1.1', '2', '', 'x']);
	const status = PICK(r, ['200 OK', '429 Too Many Requests', '200', '20', '007', '2000', 'abc']);
	return `${prefix}${info}${client}:${port} - "${method} ${path} HTTP/${version}" ${status}`;
}

describe('scanUvicorn', () => {
	const corpus = logCorpus().filter(l => l.includes('INFO:') && l.includes('" '));

	it('the corpus has access lines, and the hand read takes most of them', () => {
		const access = corpus.filter(l => UVICORN.test(l));
		expect(access.length).toBeGreaterThan(10);
		expect(access.filter(l => scanUvicorn(l) !== undefined).length).toBeGreaterThan(access.length * 0.8);
	});

	it('answers only where UVICORN matches, with its captures; parseUvicorn gives the regex\'s answer on every line', () => {
		const r = prng(77);
		const lines = [...corpus, ...corpus.map(l => mutate(l, r)), ...Array.from({length: 20_000}, () => made(r))];
		let answered = 0;
		for (const line of lines) {
			const want = viaRegex(line);
			const fast = scanUvicorn(line);
			if (fast !== undefined) {
				answered++;
				expect(fast, JSON.stringify(line)).toEqual(want);
			}
			expect(parseUvicorn(line), JSON.stringify(line)).toEqual(want);
		}
		expect(answered).toBeGreaterThan(500);
	});
});
