/**
 * The PingSources the Cloud Functions event service runs itself: those whose sink is a Broker of
 * its folder, i.e. the families' resyncs (knative/<family>/resync.yaml). A Cloud Scheduler job
 * reaches one function URL, while a resync ping fans out to every function of the family through
 * its Triggers, which only the event service's in-process brokers can do; so it keeps their
 * Knative schedule (five-field cron, one-minute granularity) and posts to its own ingress.
 * PingSources with a Service sink stay Cloud Scheduler jobs (serverless.yml
 * custom.landscape.schedules). Pure but for reading the files.
 */
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { yamlFiles, type DestinationRef } from '../broker/index.js';
import { toSpec, type PingSourceSpec, type SinkRef } from '../ping-source/index.js';

function brokerSink(doc: Record<string, unknown>): boolean {
  const spec = doc.spec as { sink?: { ref?: { kind?: unknown } } } | undefined;
  return spec?.sink?.ref?.kind === 'Broker';
}

/** The Broker-sinked PingSources of a YAML text; every problem of those listed. */
export function brokerPingSources(
  text: string,
  resolve: (ref: DestinationRef) => string | undefined,
): { specs: PingSourceSpec[]; problems: string[] } {
  const specs: PingSourceSpec[] = [];
  const problems: string[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) continue; // the broker's and the sources' readers report those
    const value: unknown = doc.toJS();
    if (typeof value !== 'object' || value === null) continue;
    const o = value as Record<string, unknown>;
    if (o.kind !== 'PingSource' || !brokerSink(o)) continue;
    const r = toSpec(o, {
      resolveRef: (ref: SinkRef, namespace: string) => resolve({ ...ref, namespace }),
    });
    problems.push(...r.problems.map((p) => `PingSource ${p}`));
    if (r.spec) specs.push(r.spec);
  }
  return { specs, problems };
}

/** Every Broker-sinked PingSource under a folder (searched recursively). */
export async function loadBrokerPingSources(
  dir: string,
  resolve: (ref: DestinationRef) => string | undefined,
): Promise<{ specs: PingSourceSpec[]; problems: string[] }> {
  const out: { specs: PingSourceSpec[]; problems: string[] } = { specs: [], problems: [] };
  for (const file of await yamlFiles(dir)) {
    const r = brokerPingSources(await readFile(file, 'utf8'), resolve);
    out.specs.push(...r.specs);
    out.problems.push(...r.problems.map((p) => `${file}: ${p}`));
  }
  return out;
}
