CREATE TABLE "agent_domains" (
	"agent_id" text NOT NULL,
	"domain" text NOT NULL,
	"verified" boolean NOT NULL,
	"method" text,
	"checked_at" timestamp with time zone NOT NULL,
	"verified_at" timestamp with time zone,
	CONSTRAINT "agent_domains_agent_id_domain_pk" PRIMARY KEY("agent_id","domain")
);
--> statement-breakpoint
ALTER TABLE "agent_domains" ADD CONSTRAINT "agent_domains_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;