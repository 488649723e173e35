/**
 * Read a local GGUF file's header and tensor table (v1–v3): magic, version, counts, KV pairs (all
 * value types, arrays included), tensor infos (name, dims, type, offset). Reads only the header,
 * in chunks; never the weights. Long arrays (the tokenizer's vocabulary) are skipped, their length kept.
 *
 * Own small reader rather than @huggingface/gguf: that one reads local files through its own blob
 * layer in growing HTTP-sized chunks and keeps the whole vocabulary in memory; this needs neither.
 */
import {open, type FileHandle} from 'node:fs/promises';
import {ggmlType, tensorBytes, tableRows, bytesPerToken, type BytesPerTokenResult} from '../model/bytes-per-token.js';

export type GgufValue = string | number | boolean | bigint | GgufValue[] | {readonly arrayType: number; readonly length: number};

export interface GgufTensor {
	readonly name: string;
	/** GGUF order: innermost (ne0) first. */
	readonly shape: readonly number[];
	readonly type: number;
	readonly typeName?: string;
	readonly offset: number;
	/** Bytes from type + shape; undefined for an unknown type. */
	readonly bytes?: number;
}

export interface GgufHeader {
	readonly version: number;
	readonly metadata: Readonly<Record<string, GgufValue>>;
	readonly tensors: readonly GgufTensor[];
	readonly architecture?: string;
	readonly blockCount?: number;
	readonly expertCount?: number;
	readonly expertUsed?: number;
	readonly nextnLayers?: number;
	/** Bytes of the header (where the aligned tensor data begins). */
	readonly headerBytes: number;
}

const MAGIC = 0x46554747; // "GGUF" little-endian
/** Arrays longer than this are skipped (length kept), not materialised. */
const MAX_KEPT_ARRAY = 64;
/** Refuse headers larger than this (a corrupt count). */
const MAX_HEADER_BYTES = 512 * 1024 * 1024;
const MAX_STRING = 64 * 1024 * 1024;

class Reader {
	private buf = Buffer.alloc(0);
	private bufStart = 0; // file offset of buf[0]
	pos = 0; // file offset
	private eof = false;

	constructor(private readonly fh: FileHandle) {}

	private async ensure(n: number): Promise<void> {
		if (this.pos + n > MAX_HEADER_BYTES) throw new Error('GGUF header too large');
		while (this.pos + n > this.bufStart + this.buf.length) {
			if (this.eof) throw new Error('GGUF file truncated');
			const keepFrom = this.pos - this.bufStart;
			const chunk = Math.max(1 << 20, n);
			const next = Buffer.alloc(chunk);
			const {bytesRead} = await this.fh.read(next, 0, chunk, this.bufStart + this.buf.length);
			if (bytesRead === 0) this.eof = true;
			this.buf = Buffer.concat([this.buf.subarray(keepFrom), next.subarray(0, bytesRead)]);
			this.bufStart += keepFrom;
		}
	}

	private at(): number {
		return this.pos - this.bufStart;
	}

	async u8(): Promise<number> { await this.ensure(1); const v = this.buf.readUInt8(this.at()); this.pos += 1; return v; }
	async i8(): Promise<number> { await this.ensure(1); const v = this.buf.readInt8(this.at()); this.pos += 1; return v; }
	async u16(): Promise<number> { await this.ensure(2); const v = this.buf.readUInt16LE(this.at()); this.pos += 2; return v; }
	async i16(): Promise<number> { await this.ensure(2); const v = this.buf.readInt16LE(this.at()); this.pos += 2; return v; }
	async u32(): Promise<number> { await this.ensure(4); const v = this.buf.readUInt32LE(this.at()); this.pos += 4; return v; }
	async i32(): Promise<number> { await this.ensure(4); const v = this.buf.readInt32LE(this.at()); this.pos += 4; return v; }
	async f32(): Promise<number> { await this.ensure(4); const v = this.buf.readFloatLE(this.at()); this.pos += 4; return v; }
	async f64(): Promise<number> { await this.ensure(8); const v = this.buf.readDoubleLE(this.at()); this.pos += 8; return v; }
	async u64(): Promise<bigint> { await this.ensure(8); const v = this.buf.readBigUInt64LE(this.at()); this.pos += 8; return v; }
	async i64(): Promise<bigint> { await this.ensure(8); const v = this.buf.readBigInt64LE(this.at()); this.pos += 8; return v; }

	/** A count: u32 in GGUF v1, u64 after. */
	async count(v1: boolean): Promise<number> {
		const n = v1 ? await this.u32() : await this.u64();
		if (typeof n === 'bigint' && n > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('GGUF count out of range');
		return Number(n);
	}

	async string(v1: boolean): Promise<string> {
		const n = await this.count(v1);
		if (n > MAX_STRING) throw new Error('GGUF string too long');
		await this.ensure(n);
		const s = this.buf.toString('utf8', this.at(), this.at() + n);
		this.pos += n;
		return s;
	}

	/**
	 * Skip up to `n` strings held wholly in the buffer, without awaiting (vocabularies hold 100k+
	 * of them). Returns how many were skipped; the caller awaits for the rest.
	 */
	skipStringsSync(n: number, v1: boolean): number {
		const lenBytes = v1 ? 4 : 8;
		const end = this.bufStart + this.buf.length;
		let i = 0;
		while (i < n) {
			const at = this.pos - this.bufStart;
			if (this.pos + lenBytes > end) break;
			const len = v1 ? this.buf.readUInt32LE(at) : Number(this.buf.readBigUInt64LE(at));
			if (len > MAX_STRING || this.pos + lenBytes + len > end) break;
			this.pos += lenBytes + len;
			i++;
		}
		return i;
	}

	async skip(n: number): Promise<void> {
		await this.ensure(n);
		this.pos += n;
	}
}

const FIXED: Readonly<Record<number, number>> = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8};

async function readValue(r: Reader, type: number, v1: boolean): Promise<GgufValue> {
	switch (type) {
		case 0: return r.u8();
		case 1: return r.i8();
		case 2: return r.u16();
		case 3: return r.i16();
		case 4: return r.u32();
		case 5: return r.i32();
		case 6: return r.f32();
		case 7: return (await r.u8()) !== 0;
		case 8: return r.string(v1);
		case 10: { const v = await r.u64(); return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v; }
		case 11: { const v = await r.i64(); return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v; }
		case 12: return r.f64();
		case 9: {
			const itemType = await r.u32();
			const n = await r.count(v1);
			if (n > MAX_KEPT_ARRAY) {
				await skipItems(r, itemType, n, v1);
				return {arrayType: itemType, length: n};
			}
			const out: GgufValue[] = [];
			for (let i = 0; i < n; i++) out.push(await readValue(r, itemType, v1));
			return out;
		}
		default: throw new Error(`GGUF value type ${type} unknown`);
	}
}

async function skipItems(r: Reader, itemType: number, n: number, v1: boolean): Promise<void> {
	const fixed = FIXED[itemType];
	if (fixed !== undefined) return r.skip(n * fixed);
	let left = n;
	while (left > 0) {
		if (itemType === 8) {
			left -= r.skipStringsSync(left, v1);
			if (left === 0) break;
		}
		await skipValue(r, itemType, v1); // one item the buffer does not hold yet (reads more)
		left--;
	}
}

async function skipValue(r: Reader, type: number, v1: boolean): Promise<void> {
	const fixed = FIXED[type];
	if (fixed !== undefined) return r.skip(fixed);
	if (type === 8) return r.skip(await r.count(v1));
	if (type === 9) {
		const itemType = await r.u32();
		const n = await r.count(v1);
		return skipItems(r, itemType, n, v1);
	}
	throw new Error(`GGUF value type ${type} unknown`);
}

const num = (v: GgufValue | undefined): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Read the header and tensor table of a local GGUF file. Throws on a file that is not GGUF (callers catch). */
export async function readGgufHeader(path: string): Promise<GgufHeader> {
	const fh = await open(path, 'r');
	try {
		const r = new Reader(fh);
		const magic = await r.u32();
		if (magic !== MAGIC) throw new Error('not a GGUF file');
		const version = await r.u32();
		if (version < 1 || version > 3) throw new Error(`GGUF version ${version} unsupported`);
		const v1 = version === 1;
		const tensorCount = await r.count(v1);
		const kvCount = await r.count(v1);
		const metadata: Record<string, GgufValue> = {};
		for (let i = 0; i < kvCount; i++) {
			const key = await r.string(v1);
			const type = await r.u32();
			metadata[key] = await readValue(r, type, v1);
		}
		const tensors: GgufTensor[] = [];
		for (let i = 0; i < tensorCount; i++) {
			const name = await r.string(v1);
			const nDims = await r.u32();
			if (nDims > 8) throw new Error(`GGUF tensor ${name}: ${nDims} dims`);
			const shape: number[] = [];
			for (let d = 0; d < nDims; d++) shape.push(await r.count(v1));
			const type = await r.u32();
			const offset = Number(await r.u64());
			tensors.push({name, shape, type, typeName: ggmlType(type)?.name, offset, bytes: tensorBytes(type, shape)});
		}
		const alignment = num(metadata['general.alignment']) ?? 32;
		const headerBytes = Math.ceil(r.pos / alignment) * alignment;
		const arch = typeof metadata['general.architecture'] === 'string' ? metadata['general.architecture'] : undefined;
		const k = (s: string): number | undefined => (arch === undefined ? undefined : num(metadata[`${arch}.${s}`]));
		return {
			version,
			metadata,
			tensors,
			architecture: arch,
			blockCount: k('block_count'),
			expertCount: k('expert_count'),
			expertUsed: k('expert_used_count'),
			nextnLayers: k('nextn_predict_layers'),
			headerBytes,
		};
	} finally {
		await fh.close();
	}
}

/** Bytes per token of a parsed GGUF header (DESIGN §1); unknown tensor types make it unknown. */
export function ggufBytesPerToken(h: GgufHeader): BytesPerTokenResult {
	const unknownType = h.tensors.find((t) => t.bytes === undefined);
	const result = bytesPerToken(
		h.tensors.map((t) => ({name: t.name, bytes: t.bytes ?? 0, rows: tableRows(t.shape)})),
		{
			expertCount: h.expertCount,
			expertUsed: h.expertUsed,
			mainLayers: h.blockCount !== undefined && h.nextnLayers !== undefined && h.nextnLayers > 0 ? h.blockCount - h.nextnLayers : undefined,
		},
	);
	if (unknownType) return {...result, bytes: undefined, reason: `tensor ${unknownType.name}: GGML type ${unknownType.type} unknown`};
	return result;
}
