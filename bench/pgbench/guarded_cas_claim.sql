BEGIN ISOLATION LEVEL READ COMMITTED;
UPDATE runs SET status = 'running', attempts = attempts + 1 WHERE id = (SELECT min(id) FROM runs WHERE status = 'queued') AND status = 'queued' RETURNING id;
COMMIT;
