-- Replays must be byte-identical: jsonb reorders keys, text keeps the first answer as sent.
ALTER TABLE "idempotency_records" ALTER COLUMN "result" SET DATA TYPE text USING "result"::text;
