/**
 * A small GGUF v3 writer for tests: header, KV pairs, tensor infos, and zero-filled tensor data
 * (sparse: the data section is sized by truncate, not written).
 */
import {open} from 'node:fs/promises';

export type KvValue =
	| {type: 'u32'; value: number}
	| {type: 'u64'; value: number}
	| {type: 'f32'; value: number}
	| {type: 'bool'; value: boolean}
	| {type: 'str'; value: string}
	| {type: 'arr-str'; value: string[]}
	| {type: 'arr-i32'; value: number[]};

export interface WriterTensor {
	name: string;
	shape: number[];
	/** GGML type id. */
	type: number;
	/** Bytes of the data (for offsets); the reader computes its own. */
	bytes: number;
}

function str(s: string): Buffer {
	const b = Buffer.from(s, 'utf8');
	const n = Buffer.alloc(8);
	n.writeBigUInt64LE(BigInt(b.length));
	return Buffer.concat([n, b]);
}
const u32 = (v: number): Buffer => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
const u64 = (v: number): Buffer => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
const i32 = (v: number): Buffer => { const b = Buffer.alloc(4); b.writeInt32LE(v); return b; };

function kv(value: KvValue): Buffer {
	switch (value.type) {
		case 'u32': return Buffer.concat([u32(4), u32(value.value)]);
		case 'u64': return Buffer.concat([u32(10), u64(value.value)]);
		case 'f32': { const b = Buffer.alloc(4); b.writeFloatLE(value.value); return Buffer.concat([u32(6), b]); }
		case 'bool': return Buffer.concat([u32(7), Buffer.from([value.value ? 1 : 0])]);
		case 'str': return Buffer.concat([u32(8), str(value.value)]);
		case 'arr-str': return Buffer.concat([u32(9), u32(8), u64(value.value.length), ...value.value.map(str)]);
		case 'arr-i32': return Buffer.concat([u32(9), u32(5), u64(value.value.length), ...value.value.map(i32)]);
	}
}

export async function writeGguf(path: string, metadata: Record<string, KvValue>, tensors: WriterTensor[], alignment = 32): Promise<void> {
	const parts: Buffer[] = [Buffer.from('GGUF', 'ascii'), u32(3), u64(tensors.length), u64(Object.keys(metadata).length)];
	for (const [k, v] of Object.entries(metadata)) parts.push(str(k), kv(v));
	let offset = 0;
	for (const t of tensors) {
		parts.push(str(t.name), u32(t.shape.length), ...t.shape.map(u64), u32(t.type), u64(offset));
		offset += Math.ceil(t.bytes / alignment) * alignment;
	}
	const header = Buffer.concat(parts);
	const dataStart = Math.ceil(header.length / alignment) * alignment;
	const fh = await open(path, 'w');
	try {
		await fh.write(header, 0, header.length, 0);
		await fh.truncate(dataStart + offset);
	} finally {
		await fh.close();
	}
}
