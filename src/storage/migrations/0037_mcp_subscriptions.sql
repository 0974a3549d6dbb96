CREATE TABLE "mcp_subscriptions" (
	"session_id" text NOT NULL,
	"uri" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "mcp_subscriptions_session_id_uri_pk" PRIMARY KEY("session_id","uri")
);
--> statement-breakpoint
ALTER TABLE "mcp_subscriptions" ADD CONSTRAINT "mcp_subscriptions_session_id_mcp_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."mcp_sessions"("id") ON DELETE cascade ON UPDATE no action;