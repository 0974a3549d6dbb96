CREATE TABLE "mail_provider_deliveries" (
	"via" text NOT NULL,
	"delivery_id" text NOT NULL,
	"seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "mail_provider_deliveries_via_delivery_id_pk" PRIMARY KEY("via","delivery_id")
);
