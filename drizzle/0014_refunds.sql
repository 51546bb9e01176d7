CREATE TABLE "refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"payment_id" uuid NOT NULL,
	"is_test" boolean NOT NULL,
	"chain" text NOT NULL,
	"asset" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"currency" text,
	"currency_amount" text,
	"status" text NOT NULL,
	"source" text,
	"to_address" text,
	"from_address" text,
	"allocations" jsonb,
	"payer_email" text,
	"reason" text,
	"automatic" boolean DEFAULT false NOT NULL,
	"sent_amount" numeric(78, 0),
	"fee" numeric(78, 0),
	"raw_tx" text,
	"tx_hash" text,
	"block_number" bigint,
	"broadcast_count" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"idempotency_key" text,
	"request_hash" text,
	"created_at" timestamp with time zone NOT NULL,
	"address_at" timestamp with time zone,
	"broadcast_at" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "refunds_amount_positive" CHECK ("refunds"."amount" > 0)
);
--> statement-breakpoint
ALTER TABLE "deposits" ADD COLUMN "refund_hold_id" text;--> statement-breakpoint
ALTER TABLE "deposits" ADD COLUMN "refunded" numeric(78, 0) DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "merchant_settings" ADD COLUMN "auto_refund_overpaid" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sim_transfers" ADD COLUMN "from_address" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "failing_noticed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "refunds_payment_idx" ON "refunds" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "refunds_merchant_idx" ON "refunds" USING btree ("merchant_id","is_test","created_at","id");--> statement-breakpoint
CREATE INDEX "refunds_open_idx" ON "refunds" USING btree ("chain","is_test","created_at") WHERE status in ('queued', 'pending', 'broadcast', 'awaiting_payment');--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_idempotency_key" ON "refunds" USING btree ("merchant_id","is_test","idempotency_key") WHERE "refunds"."idempotency_key" is not null;