-- Dashboard sign-in throttle: a progressive delay per account and per client address instead
-- of a hard lock counted from one row per failed attempt (which let anyone lock an owner
-- out, locked out everyone behind a shared proxy, and grew without bound).
--
-- One row per account (`account:<email, lower case>`) and per client (`client:<address>`,
-- an IPv6 client by its /64): consecutive failures and the earliest time the next password
-- check may run. An attempt before that time is refused without any write; rows quiet for
-- a day are pruned as new attempts are recorded.
DROP TABLE dashboard_login_failures;

CREATE TABLE dashboard_login_throttle (
  key              text PRIMARY KEY CHECK (length(key) <= 300),
  failures         integer NOT NULL CHECK (failures >= 0),
  last_failure_at  timestamptz NOT NULL,
  next_attempt_at  timestamptz NOT NULL
);
CREATE INDEX dashboard_login_throttle_last ON dashboard_login_throttle (last_failure_at);
