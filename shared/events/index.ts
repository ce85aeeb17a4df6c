export * from './types.js';
export {
  buildEvent,
  decodeHttpEvent,
  encodeBinary,
  eventFromJSON,
  extensionsOf,
  looksLikeCloudEvent,
  MalformedEventError,
  normalizeHeaders,
  storedJSON,
} from './cloudevent.js';
export type { DecodeOptions, Event, EventInit, HttpMessage } from './cloudevent.js';
export {
  abortError,
  describeError,
  emit,
  EmitError,
  emitOrThrow,
  httpFetch,
  plainHeaders,
  requestBodyBytes,
} from './emit.js';
export {
  offerReply,
  prefersReply,
  replyingFunction,
  takeReply,
  withoutReplies,
  withReplySlot,
} from './reply.js';
export type { ReplyHeaders } from './reply.js';
export type { EmitFailure, EmitOptions, EmitResponse, EmitResult, FetchAnswer, FetchLike } from './emit.js';
