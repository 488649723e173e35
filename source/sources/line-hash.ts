/**
 * The hash the tail's LineLedger keeps for each line it reads (sources/log-tail.ts), in
 * WebAssembly. V8 runs the app's JavaScript without its optimizing compiler until a log is busy
 * (bin/infertop.js, model/busy-gate.ts), and there this loop, 8 bytes a step, cost ~3.7 ns a byte:
 * 2.8 µs for a vLLM `Received request` line of 760 bytes, 9–15 % of what eight vLLM logs at 100
 * req/s cost (issue 32, docs/measured.md). WebAssembly is compiled on its own tier (Liftoff, then
 * optimized), whatever the JavaScript's flags: 0.19 µs for the same line.
 *
 * hash(h, a, b): the bytes at [a, b) of the memory (a < b), word i of which (bytes 4i..4i+3, little
 * endian) lies in the file at a multiple of 8 plus 4i: a pair of words at a step, taken from
 * multiples of 8 in the file (so a line hashes the same however the reads cut it, at multiples of
 * 8), the bytes outside [a, b) masked off. Each step, h = rotl(imul(h ^ x, 0x01000193) ^ y, 13), is
 * a bijection of x, of y and of h, so two byte runs that differ in one word (one byte, or up to four
 * in one word) never hash equal; other differences collide by chance about once in 2^32. It reads
 * the whole pair that holds byte b − 1: up to 7 bytes past b must be in the memory.
 *
 * The module, as WebAssembly text (assembled with wabt 1.0.39's wat2wasm; test/sources/line-hash.test.ts
 * checks it against the same hash in JavaScript on random bytes and cuts):
 *
 *   (module
 *     (memory (export "memory") 1)
 *     (func (export "hash") (param $h i32) (param $a i32) (param $b i32) (result i32)
 *       (local $p i32) (local $last i32) (local $x i32) (local $y i32) (local $fa i32) (local $kb i32)
 *       (local.set $p (i32.and (local.get $a) (i32.const -8)))
 *       (local.set $last (i32.and (i32.sub (local.get $b) (i32.const 1)) (i32.const -4)))
 *       (local.set $fa (i32.and (local.get $a) (i32.const 7)))
 *       (local.set $x (i32.load (local.get $p)))
 *       (local.set $y (i32.load offset=4 (local.get $p)))
 *       (if (i32.ge_u (local.get $fa) (i32.const 4))
 *         (then
 *           (local.set $x (i32.const 0))
 *           (local.set $y (i32.and (local.get $y) (i32.shl (i32.const -1) (i32.shl (i32.sub (local.get $fa) (i32.const 4)) (i32.const 3))))))
 *         (else
 *           (local.set $x (i32.and (local.get $x) (i32.shl (i32.const -1) (i32.shl (local.get $fa) (i32.const 3)))))))
 *       (block $done
 *         (loop $step
 *           (br_if $done (i32.ge_u (i32.add (local.get $p) (i32.const 4)) (local.get $last)))
 *           (local.set $h (i32.rotl (i32.xor (i32.mul (i32.xor (local.get $h) (local.get $x)) (i32.const 0x01000193)) (local.get $y)) (i32.const 13)))
 *           (local.set $p (i32.add (local.get $p) (i32.const 8)))
 *           (local.set $x (i32.load (local.get $p)))
 *           (local.set $y (i32.load offset=4 (local.get $p)))
 *           (br $step)))
 *       (local.set $kb (i32.and (local.get $b) (i32.const 3)))
 *       (local.set $kb (if (result i32) (i32.eqz (local.get $kb))
 *         (then (i32.const -1))
 *         (else (i32.sub (i32.shl (i32.const 1) (i32.shl (local.get $kb) (i32.const 3))) (i32.const 1)))))
 *       (if (i32.eq (local.get $p) (local.get $last))
 *         (then
 *           (local.set $x (i32.and (local.get $x) (local.get $kb)))
 *           (local.set $y (i32.const 0)))
 *         (else
 *           (local.set $y (i32.and (local.get $y) (local.get $kb)))))
 *       (i32.rotl (i32.xor (i32.mul (i32.xor (local.get $h) (local.get $x)) (i32.const 0x01000193)) (local.get $y)) (i32.const 13))))
 */

/** The hash of no bytes yet (FNV-1a's offset basis, as the JavaScript hash before it began). */
export const HASH_SEED = 0x811c9dc5 | 0;

const MODULE = 'AGFzbQEAAAABCAFgA39/fwF/AwIBAAUDAQABBxECBm1lbW9yeQIABGhhc2gAAAraAQHXAQEGfyABQXhxIQMgAkEBa0F8cSEEIAFBB3EhByADKAIAIQUgAygCBCEGIAdBBE8EQEEAIQUgBkF/IAdBBGtBA3R0cSEGBSAFQX8gB0EDdHRxIQULAkADQCADQQRqIARPDQEgACAFc0GTg4AIbCAGc0ENdyEAIANBCGohAyADKAIAIQUgAygCBCEGDAALCyACQQNxIQggCEUEf0F/BUEBIAhBA3R0QQFrCyEIIAMgBEYEQCAFIAhxIQVBACEGBSAGIAhxIQYLIAAgBXNBk4OACGwgBnNBDXcL';

/** What this file uses of node's WebAssembly (the project's TypeScript libraries do not declare it). */
interface Wasm {
	readonly Module: new (bytes: Uint8Array) => object;
	readonly Instance: new (module: object) => {readonly exports: Record<string, unknown>};
}
interface Memory {
	readonly buffer: ArrayBuffer;
	grow(pages: number): number;
}

interface Hasher {
	readonly memory: Memory;
	readonly hash: (h: number, a: number, b: number) => number;
}

let hasher: Hasher | undefined;
/** A view of the whole memory (made again when the memory grows: growing detaches the old buffer). */
let view = new Uint8Array(0);

/** The module, compiled and instantiated at first use (267 bytes: synchronously, in well under a millisecond). */
function instance(): Hasher {
	if (hasher === undefined) {
		const wasm = (globalThis as unknown as {WebAssembly: Wasm}).WebAssembly;
		const exports = new wasm.Instance(new wasm.Module(Buffer.from(MODULE, 'base64'))).exports;
		hasher = {memory: exports.memory as Memory, hash: exports.hash as Hasher['hash']};
		view = new Uint8Array(hasher.memory.buffer);
	}
	return hasher;
}

/**
 * The memory's bytes, with room for `length` bytes and 16 after them (the hash reads up to 7 past
 * its end; a caller may put a sentinel there). One memory for every log: a caller fills it and
 * hashes in one synchronous step, and keeps nothing in it between two.
 */
export function hashBytes(length: number): Uint8Array {
	const {memory} = instance();
	const need = length + 16;
	if (memory.buffer.byteLength < need) {
		memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65_536));
		view = new Uint8Array(memory.buffer);
	} else if (view.buffer !== memory.buffer) view = new Uint8Array(memory.buffer);
	return view;
}

/** `h` and the bytes at [a, b) of hashBytes' memory (a < b), as above. */
export function hashRange(h: number, a: number, b: number): number {
	return instance().hash(h, a, b);
}
