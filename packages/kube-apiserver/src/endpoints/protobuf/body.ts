/**
 * Where the API server reads request bodies: a protobuf body (by its Content-Type) becomes the
 * JSON text of the object, so the JSON request path handles it unchanged; a body that cannot be
 * decoded is a 400 BadRequest, a kind without descriptors a 415 UnsupportedMediaType.
 */
import { badRequest, StatusError } from '../../api/errors.js';
import { decodeProtobufObject, isProtobufContentType, ProtobufDecodeError } from './envelope.js';

export function requestBodyText(raw: Buffer, contentType: string | undefined): string {
  if (!isProtobufContentType(contentType)) return raw.toString('utf8');
  try {
    return JSON.stringify(decodeProtobufObject(raw));
  } catch (e) {
    if (!(e instanceof ProtobufDecodeError)) throw e;
    if (e.reason === 'UnsupportedKind') throw new StatusError(415, 'UnsupportedMediaType', e.message);
    throw badRequest(e.message);
  }
}
