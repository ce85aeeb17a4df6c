/**
 * The control file a running `npm start` writes into its state directory, read by
 * `npm run landscape -- <command>` (kept apart so the CLI does not load the API server).
 */
export const CONTROL_FILE = 'landscape.json';

export interface ControlFile {
  pid: number;
  url: string;
  token: string;
  clusters: Record<string, { url: string; kubeconfig: string }>;
}
