import { leafHash, type Hash } from './merkle.js';

/**
 * The tree's leaf for the event at `position`: its position and its stored chain hash. The chain hash covers every
 * stored field of the event and the hash before it, so an event rewritten with the later chain hashes recomputed
 * gets new leaves from there on, and a field edited without recomputing breaks the chain (which `audit verify`
 * checks too). Hashing 80 bytes per event keeps the tree off the cost of parsing the event's data.
 */
export const leafInput = (position: number, chainHash: string): string => JSON.stringify([position, chainHash]);

export const leafOf = (position: number, chainHash: string): Hash => leafHash(Buffer.from(leafInput(position, chainHash)));
