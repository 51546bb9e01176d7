CREATE TABLE "payout_wallet_changes" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"is_test" boolean NOT NULL,
	"chain" text NOT NULL,
	"old_address" text,
	"new_address" text,
	"actor" text NOT NULL,
	"ip" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "payment_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payout_wallet_changes" ADD CONSTRAINT "payout_wallet_changes_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payout_wallet_changes_merchant_idx" ON "payout_wallet_changes" USING btree ("merchant_id","created_at");