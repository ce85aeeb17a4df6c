/** core/v1 Event (Kubernetes 1.32); events.k8s.io is not served. */
import type { ResourceDef } from '../../api/types.js';
import { computedColumn, fieldColumn } from './columns.js';
import { int32, kindProps, microTime, obj, objectReference, str, time } from './schema.js';

export function eventDef(): ResourceDef {
  return {
    group: '',
    version: 'v1',
    kind: 'Event',
    listKind: 'EventList',
    plural: 'events',
    singular: 'event',
    shortNames: ['ev'],
    categories: [],
    namespaced: true,
    schema: obj(
      kindProps({
        action: str(),
        count: int32(),
        eventTime: microTime(),
        firstTimestamp: time(),
        involvedObject: objectReference(),
        lastTimestamp: time(),
        message: str(),
        reason: str(),
        related: objectReference(),
        reportingComponent: { type: 'string', default: '' },
        reportingInstance: { type: 'string', default: '' },
        series: obj({ count: int32(), lastObservedTime: microTime() }),
        source: obj({ component: str(), host: str() }),
        type: str('Normal or Warning (free-form for core/v1 events).'),
      }),
      ['involvedObject'],
    ),
    subresources: {},
    // The real Event table has no leading Name column: Name is the last, wide-only column.
    printerColumns: [
      computedColumn(
        'Last Seen',
        '.lastTimestamp',
        'age of series.lastObservedTime, else lastTimestamp, else eventTime (with "(x<count> over <age>)" when count > 1)',
      ),
      fieldColumn('Type', '.type'),
      fieldColumn('Reason', '.reason'),
      computedColumn(
        'Object',
        '.involvedObject.name',
        'lower-case involvedObject.kind + "/" + involvedObject.name',
      ),
      fieldColumn('Subobject', '.involvedObject.fieldPath', 'string', 1),
      computedColumn('Source', '.source.component', 'source.component, then ", " + source.host when set', 1),
      fieldColumn('Message', '.message'),
      computedColumn('First Seen', '.firstTimestamp', 'age of firstTimestamp, else eventTime', 1),
      computedColumn('Count', '.count', 'count, or series.count when a series is set', 1),
      fieldColumn('Name', '.metadata.name', 'string', 1),
    ],
    builtin: true,
  };
}
