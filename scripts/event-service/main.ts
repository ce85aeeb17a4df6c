/**
 * The entry of the event service's bundle (`dist/events/main.js` in the image, the Dockerfile
 * builds it): the event plane (triggers/plane) of the project's manifests, its API-server sources
 * with the Brokers and Triggers routing to the Cloud Functions URLs (triggers/plane/main.ts, its
 * flags), as the always-on Cloud Run service that `npm run deploy:gcf` deploys (scripts/deploy-gcf.ts).
 */
import './argv.js';
import { main } from '../../triggers/plane/main.js';

main(process.argv, process.env).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(
      JSON.stringify({
        level: 'error',
        ts: new Date().toISOString(),
        logger: 'event-service',
        msg: 'cannot run',
        error: String(err),
      }),
    );
    process.exit(1);
  },
);
