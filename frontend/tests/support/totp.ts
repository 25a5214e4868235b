// RFC 6238 TOTP (SHA-1, 6 digits, 30 s steps: what GoTrue's factors use) with node:crypto,
// so tests can act as an authenticator app without another dependency.
import { createHmac } from 'node:crypto';

function base32Decode(s: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of s.replace(/=+$/, '').toUpperCase()) {
    const i = alphabet.indexOf(ch);
    if (i < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The code for `secret` (base32) at `time` (ms since the epoch, default now). */
export function totpCode(secret: string, time = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(time / 1000 / 30)));
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const n = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return n.toString().padStart(6, '0');
}

/** A six-digit code that no step within ±2 of now accepts. */
export function wrongTotpCode(secret: string): string {
  const valid = new Set([-2, -1, 0, 1, 2].map((d) => totpCode(secret, Date.now() + d * 30_000)));
  return ['000000', '111111', '222222'].find((c) => !valid.has(c))!;
}
