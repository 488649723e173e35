/** Writes a safetensors file for tests: 8-byte header length, JSON header, zeroed data. */
import {writeFile} from 'node:fs/promises';

export interface StTensor {
	name: string;
	dtype: string;
	shape: number[];
	bytes: number;
}

export async function writeSafetensors(file: string, tensors: StTensor[]): Promise<void> {
	const header: Record<string, unknown> = {__metadata__: {format: 'mlx'}};
	let off = 0;
	for (const t of tensors) {
		header[t.name] = {dtype: t.dtype, shape: t.shape, data_offsets: [off, off + t.bytes]};
		off += t.bytes;
	}
	const json = Buffer.from(JSON.stringify(header), 'utf8');
	const len = Buffer.alloc(8);
	len.writeBigUInt64LE(BigInt(json.length));
	await writeFile(file, Buffer.concat([len, json, Buffer.alloc(off)]));
}
