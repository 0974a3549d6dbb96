CREATE TABLE "arena_signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"sealed_private_key" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"retired_at" timestamp with time zone,
	CONSTRAINT "arena_signing_keys_retired_at" CHECK (("arena_signing_keys"."status" = 'ACTIVE' and "arena_signing_keys"."retired_at" is null) or ("arena_signing_keys"."status" = 'RETIRED' and "arena_signing_keys"."retired_at" is not null))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "arena_signing_keys_one_active" ON "arena_signing_keys" USING btree ("status") WHERE status = 'ACTIVE';