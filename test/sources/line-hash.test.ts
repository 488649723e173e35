/**
 * The ledger's line hash in WebAssembly (sources/line-hash.ts) against the same hash written in
 * JavaScript (what sources/log-tail.ts ran before, issue 32): the same value for every run of bytes
 * and every cut, on random bytes; the memory grows for a long read and still hashes right.
 */
import {describe, expect, it} from 'vitest';
import {HASH_SEED, hashBytes, hashRange} from '../../source/sources/line-hash.js';

/** Masks of a little-endian word: KEEP_FROM[k] its bytes k..3, KEEP_BELOW[k] its bytes 0..k-1 (all where k is 0). */
const KEEP_FROM = [-1, -1 << 8, -1 << 16, -1 << 24];
const KEEP_BELOW = [-1, 0xff, 0xffff, 0xffffff];

/** The reference: bytes [a, b) of `bytes` (byte 0 at a multiple of 8 in the file), a pair of little-endian words a step. */
function reference(bytes: Uint8Array, h: number, a: number, b: number): number {
	const word = (i: number) => (bytes[4 * i]! | (bytes[4 * i + 1]! << 8) | (bytes[4 * i + 2]! << 16) | (bytes[4 * i + 3]! << 24)) | 0;
	let i = (a >> 3) << 1;
	const last = (b - 1) >> 2;
	const fa = a & 7;
	let x = fa >= 4 ? 0 : word(i) & KEEP_FROM[fa]!;
	let y = fa >= 4 ? word(i + 1) & KEEP_FROM[fa - 4]! : word(i + 1);
	while (i + 1 < last) {
		h = Math.imul(h ^ x, 0x01000193) ^ y;
		h = (h << 13) | (h >>> 19);
		i += 2;
		x = word(i);
		y = word(i + 1);
	}
	if (i === last) {
		x &= KEEP_BELOW[b & 3]!;
		y = 0;
	} else y &= KEEP_BELOW[b & 3]!;
	h = Math.imul(h ^ x, 0x01000193) ^ y;
	return (h << 13) | (h >>> 19);
}

function rng(seed: number) {
	return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('the line hash in WebAssembly', () => {
	it('equals the JavaScript hash on 20,000 random runs of bytes, every start and end within a pair, any seed', () => {
		const rand = rng(7);
		for (let t = 0; t < 20_000; t++) {
			const n = 1 + Math.floor(rand() * 300);
			const bytes = new Uint8Array(n + 16);
			for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rand() * 256);
			const a = Math.floor(rand() * n);
			const b = a + 1 + Math.floor(rand() * (n - a));
			const h = t % 3 === 0 ? HASH_SEED : Math.floor(rand() * 2 ** 32) | 0;
			hashBytes(bytes.length).set(bytes);
			expect(hashRange(h, a, b)).toBe(reference(bytes, h, a, b));
		}
	});

	it('hashes only [a, b): the bytes around it change nothing; one byte inside changes it', () => {
		const bytes = hashBytes(64);
		bytes.fill(0x61, 0, 64);
		const h = hashRange(HASH_SEED, 5, 43);
		bytes[4] = 0x7a;
		bytes[43] = 0x7a;
		bytes[47] = 0x7a;
		expect(hashRange(HASH_SEED, 5, 43)).toBe(h);
		for (const i of [5, 20, 42]) {
			bytes[i] = 0x62;
			expect(hashRange(HASH_SEED, 5, 43)).not.toBe(h);
			bytes[i] = 0x61;
		}
	});

	it('grows its memory for a long read (64 KiB pages), and the new memory hashes as the old did', () => {
		const small = hashBytes(100);
		small.fill(0x33, 0, 100);
		const h = hashRange(HASH_SEED, 0, 100);
		const big = hashBytes(300_000);
		expect(big.length).toBeGreaterThanOrEqual(300_016);
		expect(big.length % 65_536).toBe(0);
		expect(hashRange(HASH_SEED, 0, 100)).toBe(h);
		big.fill(0x34, 200_000, 300_000);
		expect(hashRange(HASH_SEED, 200_000, 300_000)).toBe(reference(big, HASH_SEED, 200_000, 300_000));
		// a view asked for later is of the grown memory
		expect(hashBytes(10).buffer).toBe(big.buffer);
	});
});
