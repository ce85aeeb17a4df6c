/**
 * The drill's lock check (the Landscaper's SyncObject lock, shared/lock/decide.ts: held while
 * `spec.podName` is set; unlocking sets it to "" and never deletes). At the end every lock must be
 * given back, whoever holds it: a lock still held by a live owner blocks the item for everyone else
 * just as one held by a Pod that is gone. A lock taken for a moment by a reconcile that is running
 * (a resync pass) is not left held: so a lock counts when it is held at two reads a few seconds
 * apart with nothing written in between (same owner, same resourceVersion). Pure.
 */

export interface LockView {
  metadata: { name: string; resourceVersion?: string };
  spec?: { podName?: string; kind?: string; name?: string };
}

export const isHeld = (l: LockView): boolean => Boolean(l.spec?.podName);

/** The locks held at `first` and still held, unchanged, at `later`. */
export function locksLeftHeld(first: readonly LockView[], later: readonly LockView[]): LockView[] {
  const before = new Map(first.filter(isHeld).map((l) => [l.metadata.name, l]));
  return later.filter((l) => {
    const was = before.get(l.metadata.name);
    return (
      was !== undefined &&
      isHeld(l) &&
      was.spec?.podName === l.spec?.podName &&
      was.metadata.resourceVersion === l.metadata.resourceVersion
    );
  });
}

/** One line per lock left held; `ownerAlive` says whether the holder's Pod still exists. */
export function lockLines(left: readonly LockView[], ownerAlive: (pod: string) => boolean): string[] {
  return left.map((l) => {
    const owner = l.spec?.podName ?? '';
    const what = `${l.spec?.kind ?? 'object'} ${l.spec?.name ?? '?'}`;
    return `SyncObject ${l.metadata.name} of ${what} still locked by ${owner} (${ownerAlive(owner) ? 'alive' : 'gone'})`;
  });
}
