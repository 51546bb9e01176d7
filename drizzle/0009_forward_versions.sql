CREATE TABLE "forward_versions" (
	"forward_id" text NOT NULL,
	"tx_hash" text NOT NULL,
	"raw_tx" text NOT NULL,
	"fee" numeric(78, 0) NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"replaced_at" timestamp with time zone NOT NULL,
	CONSTRAINT "forward_versions_forward_id_tx_hash_pk" PRIMARY KEY("forward_id","tx_hash")
);
--> statement-breakpoint
ALTER TABLE "forward_versions" ADD CONSTRAINT "forward_versions_forward_id_forwards_id_fk" FOREIGN KEY ("forward_id") REFERENCES "public"."forwards"("id") ON DELETE no action ON UPDATE no action;