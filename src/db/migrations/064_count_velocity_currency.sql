-- A COUNT velocity condition was stored with SUM's default currency ('ASSET'), which the rule
-- check refuses for COUNT: every later PATCH of such a rule (even { isActive: false }) checked
-- the stored rule again and answered 400. The check no longer fills it in; rules stored before
-- lose it here (COUNT never read it).
UPDATE policies
   SET conditions = conditions #- '{velocity,currency}'
 WHERE conditions->'velocity'->>'measure' = 'COUNT' AND conditions->'velocity' ? 'currency';
