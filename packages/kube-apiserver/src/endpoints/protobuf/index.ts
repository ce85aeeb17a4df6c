/**
 * Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`), as kubectl sends
 * them for its generator commands (`kubectl create configmap|secret|deployment|service ...`,
 * `kubectl create role|clusterrole|rolebinding|clusterrolebinding|token`, `kubectl auth can-i`).
 */
export {
  decodeProtobufObject,
  encodeProtobufObject,
  isProtobufContentType,
  ProtobufDecodeError,
  type ProtobufErrorReason,
  PROTOBUF_CONTENT_TYPE,
  PROTOBUF_MAGIC,
  supportedProtobufKinds,
} from './envelope.js';
export { requestBodyText } from './body.js';
