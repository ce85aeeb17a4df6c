/**
 * The protobuf wire format, as far as Kubernetes objects need it: a reader for varint, 64-bit,
 * length-delimited and 32-bit fields, and a writer for the same. Varints are read as BigInt so
 * negative int32/int64 values (ten-byte two's complement) and values above 2^53 come out right.
 */

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

/** A protobuf body that cannot be read: truncated, a bad wire type, or a field of the wrong shape. */
export class ProtobufFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufFormatError';
  }
}

export interface Tag {
  field: number;
  wire: number;
}

export class Reader {
  private pos = 0;

  constructor(private readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  tag(): Tag {
    const key = Number(this.varint());
    const field = Math.floor(key / 8);
    if (field < 1) throw new ProtobufFormatError(`invalid field number 0 at byte ${this.pos}`);
    return { field, wire: key % 8 };
  }

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.buf.length) throw new ProtobufFormatError('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
    }
    throw new ProtobufFormatError('varint longer than 10 bytes');
  }

  int32(): number {
    return Number(BigInt.asIntN(32, this.varint()));
  }

  int64(): number {
    return Number(BigInt.asIntN(64, this.varint()));
  }

  bool(): boolean {
    return this.varint() !== 0n;
  }

  bytes(): Uint8Array {
    const len = Number(this.varint());
    if (this.pos + len > this.buf.length) {
      throw new ProtobufFormatError(
        `length-delimited field of ${len} bytes runs past the end of the message`,
      );
    }
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  string(): string {
    return Buffer.from(this.bytes()).toString('utf8');
  }

  /** Skips a field of an unknown number. */
  skip(wire: number): void {
    if (wire === WIRE_VARINT) this.varint();
    else if (wire === WIRE_BYTES) this.bytes();
    else if (wire === WIRE_FIXED64) this.advance(8);
    else if (wire === WIRE_FIXED32) this.advance(4);
    else throw new ProtobufFormatError(`unsupported wire type ${wire}`);
  }

  private advance(n: number): void {
    if (this.pos + n > this.buf.length) throw new ProtobufFormatError('truncated fixed-width field');
    this.pos += n;
  }
}

export class Writer {
  private readonly chunks: Uint8Array[] = [];

  tag(field: number, wire: number): this {
    return this.varint(BigInt(field * 8 + wire));
  }

  /** A varint; negative numbers take ten bytes, as Go writes int32 and int64. */
  varint(value: bigint | number): this {
    let v = BigInt.asUintN(64, BigInt(value));
    const out: number[] = [];
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.chunks.push(Uint8Array.from(out));
    return this;
  }

  bytes(field: number, data: Uint8Array): this {
    this.tag(field, WIRE_BYTES).varint(data.length);
    this.chunks.push(data);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  number(field: number, value: number | bigint): this {
    return this.tag(field, WIRE_VARINT).varint(typeof value === 'number' ? Math.trunc(value) : value);
  }

  bool(field: number, value: boolean): this {
    return this.tag(field, WIRE_VARINT).varint(value ? 1 : 0);
  }

  raw(data: Uint8Array): this {
    this.chunks.push(data);
    return this;
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
