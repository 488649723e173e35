/**
 * Where a server's request ring stood in the ring it had before. The reducer only drops a ring's
 * oldest records, appends new ones and replaces a record that changed in its place (a new object),
 * so a record still held now at place k stood at k + shift then (shift: the places dropped since).
 * A view derived from the ring (sessions' timelines, the table's entries) keeps what it made for
 * the records still held by matching them place by place, by identity: no per-record table (a
 * WeakMap from records cost more than it saved under a busy log, issue 32). Pure.
 */

/** Records tried for a place in the old ring: a replaced one is not found (the reducer replaces among the newest 32). */
const TRIES = 40;

/** The shift (old place − new place) of `ring`'s records in `old`, or -1 where none of its first records is there. */
export function ringShift(old: readonly unknown[], ring: readonly unknown[]): number {
	for (let i = 0; i < ring.length && i < TRIES; i++) {
		const k = old.indexOf(ring[i]);
		if (k >= 0) return k - i;
	}
	return -1;
}

/** The place in `old` where `ring[k]` stood (given `shift`, from ringShift), or -1 where it is not the same record. */
export function heldAt(old: readonly unknown[], ring: readonly unknown[], shift: number, k: number): number {
	if (shift < 0) return -1;
	const o = k + shift;
	return o < old.length && old[o] === ring[k] ? o : -1;
}
