/** The event plane: ingress, brokers, PingSources, ApiServerSources and broker state, assembled once. */
export { openEventPlane } from './plane.js';
export type { EventPlane, OpenEventPlane, OpenOptions, PlaneManifests, StartOptions } from './plane.js';
export { startEventService } from './event-service.js';
export type { EventService, EventServiceOptions } from './event-service.js';
export {
  FunctionUrlTemplateError,
  parseFunctionUrlTemplate,
  routedResolver,
  sinkFromRefs,
  withFunctionAuth,
} from './routing.js';
export { brokerPingSources, loadBrokerPingSources } from './pings.js';
