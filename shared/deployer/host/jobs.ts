/**
 * What one deployer instance remembers of the jobs its own steps took, so that the events of a
 * job it already works on, or has finished, cost no read: the events a job's own writes cause
 * (the job hand-out's annotation write, the deployer's finalizer) arrive while its step runs, and
 * an event that shows a job open which this instance has finished since is older than that
 * finishing write (jobIDFinished only moves on). Only for objects an event carried, never for a
 * read: an operation annotation is always looked at. An event covered while the step runs is
 * noted; when the step ends without finishing the job, the item is looked at again after the lock
 * retry delay (as an event meeting the held lock always was). Forgetting only costs a read.
 *
 * The finished jobs are also shared between the replicas of a deployer (`FinishedJobs`, in Redis
 * with a TTL): an event of a job another replica finished is then skipped as well, instead of
 * taking the lock to find the job done. Redis away: the event takes the lock path as before.
 */
import { LandscaperAnnotations, type DeployItem } from '../../api/landscaper.js';
import { mustWork } from '../index.js';
import { BoundedSet } from '../items.js';

function jobOf(item: DeployItem): { uid: string; jobID: string } {
  return { uid: item.metadata?.uid ?? '', jobID: item.status?.jobID ?? '' };
}

/** Jobs finished by any replica of this deployer (`uid`, `jobID`); best effort. */
export interface FinishedJobs {
  has(uid: string, jobID: string): Promise<boolean>;
  add(uid: string, jobID: string): Promise<void>;
}

export class JobMemo {
  constructor(private readonly shared?: FinishedJobs) {}

  /** Per item uid: the job a step of this instance works on, and whether an event met it. */
  private readonly working = new Map<string, { jobID: string; met: boolean }>();
  /** `uid/jobID` finished by this instance. */
  private readonly finished = new BoundedSet();

  /** True when the carried object shows an open job this instance works on or has finished. */
  covers(item: DeployItem): boolean {
    if (!mustWork(item) || item.metadata?.annotations?.[LandscaperAnnotations.operation]) return false;
    const { uid, jobID } = jobOf(item);
    if (this.finished.has(`${uid}/${jobID}`)) return true;
    const w = this.working.get(uid);
    if (w?.jobID !== jobID) return false;
    w.met = true;
    return true;
  }

  /** A step of this instance takes the item's job (false when one already works on the item). */
  start(item: DeployItem): boolean {
    const { uid, jobID } = jobOf(item);
    if (this.working.has(uid)) return false;
    this.working.set(uid, { jobID, met: false });
    return true;
  }

  /** A step finished the item's job `jobID`. */
  async finish(item: DeployItem, jobID: string | undefined): Promise<void> {
    const { uid } = jobOf(item);
    this.finished.add(`${uid}/${jobID ?? ''}`);
    await this.shared?.add(uid, jobID ?? '').catch(() => undefined);
  }

  /** `covers`, or else whether another replica finished the job the carried object shows open. */
  async coversShared(item: DeployItem): Promise<boolean> {
    if (this.covers(item)) return true;
    if (!this.shared || !mustWork(item) || item.metadata?.annotations?.[LandscaperAnnotations.operation])
      return false;
    const { uid, jobID } = jobOf(item);
    const done = await this.shared.has(uid, jobID).catch(() => false);
    if (done) this.finished.add(`${uid}/${jobID}`);
    return done;
  }

  /** The step ended; true when an event met it meanwhile. */
  end(uid: string): boolean {
    const met = this.working.get(uid)?.met ?? false;
    this.working.delete(uid);
    return met;
  }
}
