/** Forked by loadgen.ts (`child` mode): runs one autocannon load and reports its result. */
import autocannon, { type Options } from 'autocannon';

process.once('message', (opts: Options) => {
  autocannon(opts).then(
    (result) => process.send?.({ result }, () => process.exit(0)),
    (err: Error) => process.send?.({ error: err.message }, () => process.exit(1)),
  );
});
