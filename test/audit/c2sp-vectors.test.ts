// Interoperability: our signed notes, checkpoints and cosignatures against published examples.
// Sources (test data only, quoted as published):
//  - c2sp.org/signed-note, tlog-checkpoint, tlog-cosignature, tlog-witness (C2SP/C2SP, BSD-1-Clause): the examples in the text;
//  - golang.org/x/mod/sumdb/note's note_test.go (BSD-3-Clause): the PeterNeumann and EnochRoot keys and notes;
//  - a sum.golang.org checkpoint as served by the Go checksum database, and its published verifier key;
//  - transparency-dev/formats' note_cosigv1_test.go (Apache-2.0): a cosignature/v1 verifier key and a cosignature.
import { describe, expect, it } from 'vitest';
import { checkpointText, parseCheckpointText } from '../../src/audit/checkpoint-text.js';
import { EMPTY_ROOT } from '../../src/audit/merkle.js';
import {
  COSIGNATURE_V1,
  cosignatureTime,
  cosignedMessage,
  cosigner,
  decodeBase64,
  ed25519PrivateKey,
  hexKeyId,
  keyIdOf,
  noteSigner,
  openNote,
  parseNote,
  parseSignatureLine,
  parseVkey,
} from '../../src/audit/note.js';
import { parseAddCheckpoint } from '../../src/witness/request.js';

const SPEC_VKEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
const SPEC_NOTE =
  'This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';

const PETER_SKEY_SEED = 'AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz'; // PRIVATE+KEY+PeterNeumann+c74f20a3+…
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const ENOCH_VKEY = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const PETER_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG = '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const ENOCH_SIG = '— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';

const GO_SUMDB_VKEY = 'sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8';
const GO_SUMDB_CHECKPOINT =
  'go.sum database tree\n31700353\nqINS1GRFhWHwdkUeqLEoP4yEMkTBBzxBkGwGQlVlVcs=\n\n— sum.golang.org Az3grnmrIUEDFqHzAElIQCPNoRFRAAdFo47fooyWKMHb89k11GJh5zHIfNCOBmwn/C3YI8oW9/C8DJ87F61QqspBYwM=\n';

const SPEC_CHECKPOINT_TEXT = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
const SPEC_COSIGNED = `${SPEC_CHECKPOINT_TEXT}
— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=
— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==
`;

describe('signed notes (c2sp.org/signed-note)', () => {
  it("verifies the spec's example note with the spec's verifier key, whose key ID we recompute", () => {
    const verifier = parseVkey(SPEC_VKEY);
    expect(hexKeyId(verifier.keyId)).toBe('530d903a');
    expect(verifier.vkey).toBe(SPEC_VKEY);
    const { note, verified } = openNote(SPEC_NOTE, [verifier]);
    expect(note.text).toBe('This is an example message.\n');
    expect(verified.map((s) => s.name)).toEqual(['example.com/foo']);
  });

  it("signs Go's example note byte for byte with Go's example key, and computes its key ID", () => {
    const seed = decodeBase64(PETER_SKEY_SEED)!;
    expect(seed[0]).toBe(0x01); // the signature type byte, then the 32-byte seed
    const signer = noteSigner('PeterNeumann', ed25519PrivateKey(seed.subarray(1)));
    expect(signer.verifier.vkey).toBe(PETER_VKEY);
    expect(signer.sign(PETER_TEXT)).toBe(PETER_SIG);
  });

  it("opens Go's notes as Go does: unknown keys ignored, a failing known key rejects, none known rejects", () => {
    const peter = parseVkey(PETER_VKEY);
    const enoch = parseVkey(ENOCH_VKEY);
    const message = `${PETER_TEXT}\n${PETER_SIG}${ENOCH_SIG}`;
    expect(openNote(message, [peter]).verified.map((s) => s.name)).toEqual(['PeterNeumann']);
    expect(openNote(message, [peter, enoch]).verified.map((s) => s.name)).toEqual(['PeterNeumann', 'EnochRoot']);
    expect(() => openNote(message, [])).toThrow(/no verifiable signatures/);
    const broken = `${PETER_TEXT}\n${PETER_SIG.slice(0, 60)}ABCD${PETER_SIG.slice(60)}`;
    expect(() => openNote(broken, [peter])).toThrow(/invalid signature for key PeterNeumann\+c74f20a3/);
  });

  it.each([
    ['no blank line', PETER_TEXT],
    ['nothing after the blank line', `${PETER_TEXT}\n`],
    ['a signature line without its newline', `${PETER_TEXT}\n${PETER_SIG.trimEnd()}`],
    ['a control character', `\u0001${PETER_TEXT}\n${PETER_SIG}`],
    [
      'a key name with a space',
      `${PETER_TEXT}\n— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
    ],
    ['a line that is no signature', `${PETER_TEXT}\n${PETER_SIG}Unexpected line.\n`],
  ])('refuses a malformed note: %s', (_, message) => {
    expect(() => parseNote(message)).toThrow(/malformed note/);
  });

  it('refuses mangled verifier keys', () => {
    expect(() => parseVkey('PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toThrow(/key ID/);
    expect(() => parseVkey('PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toThrow(/unsupported signature type/);
    expect(() => parseVkey('PeterNeumann+c74f20a3')).toThrow(/not a verifier key/);
  });
});

describe('checkpoints (c2sp.org/tlog-checkpoint)', () => {
  it('verifies a checkpoint the Go checksum database signed, with its published key', () => {
    const { note } = openNote(GO_SUMDB_CHECKPOINT, [parseVkey(GO_SUMDB_VKEY)]);
    const body = parseCheckpointText(note.text);
    expect(body.origin).toBe('go.sum database tree');
    expect(body.size).toBe(31700353);
    expect(checkpointText(body)).toBe(note.text);
  });

  it("reads the spec's example checkpoint and writes its text back byte for byte", () => {
    const note = parseNote(SPEC_COSIGNED);
    const body = parseCheckpointText(note.text);
    expect(body).toMatchObject({ origin: 'example.com/behind-the-sofa', size: 20852163 });
    expect(body.root.toString('base64')).toBe('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=');
    expect(checkpointText(body)).toBe(SPEC_CHECKPOINT_TEXT);
  });

  it('refuses checkpoint texts the spec forbids', () => {
    expect(() => parseCheckpointText('origin\n012\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n')).toThrow(/leading zeroes/);
    expect(() => parseCheckpointText('origin\n12\nnot-base64\n')).toThrow(/root hash/);
    expect(() => parseCheckpointText('origin\n12\n')).toThrow(/three lines/);
  });
});

describe('cosignatures (c2sp.org/tlog-cosignature)', () => {
  it("reads the spec's example cosignature: its key ID and the time of the spec's signed message", () => {
    const [, witness] = parseNote(SPEC_COSIGNED).signatures;
    expect(witness!.name).toBe('witness.example.com/w1');
    expect(cosignatureTime(witness!)).toBe(1679315147n);
    // The spec's signed message, byte for byte.
    expect(cosignedMessage(SPEC_CHECKPOINT_TEXT, 1679315147n).toString()).toBe(
      'cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
    );
  });

  it("computes a published cosigner key's ID (type 0x04) and reads a published cosignature's time", () => {
    const verifier = parseVkey('remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2');
    expect(verifier.type).toBe(COSIGNATURE_V1);
    expect(hexKeyId(keyIdOf('remora.n621.de', COSIGNATURE_V1, verifier.publicKey))).toBe('da77ade7');
    const line = parseSignatureLine(
      '— w ZGhGuQAAAABm/qTPeyKXD+R2rzyQsxPiP8mXum7qq/iF0u4vanlqJyocWODBt97w9uL+8qT7S5gxEHWWOworDcFiEBYJXORmnFBOBA==\n',
    );
    expect(cosignatureTime(line)).toBe(1727964367n);
  });

  it('cosigns so that a note verifier with the cosigner key accepts, and not with the same key as a plain signer', () => {
    const seed = decodeBase64(PETER_SKEY_SEED)!.subarray(1);
    const witness = cosigner('witness.example/w1', ed25519PrivateKey(seed));
    const line = witness.sign(SPEC_CHECKPOINT_TEXT, 1679315147n);
    expect(cosignatureTime(parseSignatureLine(line))).toBe(1679315147n);
    const cosigned = `${SPEC_CHECKPOINT_TEXT}\n${line}`;
    expect(openNote(cosigned, [parseVkey(witness.verifier.vkey)]).verified).toHaveLength(1);
    const plain = noteSigner('witness.example/w1', ed25519PrivateKey(seed)).verifier;
    expect(plain.keyId).not.toBe(witness.verifier.keyId);
    expect(() => openNote(cosigned, [plain])).toThrow(/no verifiable signatures/);
  });
});

describe('witness requests (c2sp.org/tlog-witness)', () => {
  it("reads the spec's example add-checkpoint body", () => {
    const body = `old 20852014
PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=
jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=
5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=
/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=

example.com/behind-the-sofa
20852163
CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=

— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=
— example.com/behind-the-sofa opLqBQsREYCgu6xQkYQwJr9fo45a62DN9EdmHXnZdXNqlcVGlCum2Wks+49/V6267UEjw6QUXTS5Rovnzv++qbSzm9Q=
`;
    const request = parseAddCheckpoint(body);
    expect(request.oldSize).toBe(20852014);
    expect(request.proof.map((h) => h.toString('base64'))).toEqual([
      'PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=',
      'jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=',
      '5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=',
      '/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=',
    ]);
    expect(request.checkpoint.size).toBe(20852163);
    expect(request.note.signatures).toHaveLength(2);
  });

  it('knows the empty tree as RFC 6962 defines it (SHA-256 of nothing)', () => {
    expect(EMPTY_ROOT.toString('base64')).toBe('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
  });
});
