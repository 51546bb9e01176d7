ALTER TABLE "payments" ALTER COLUMN "chain" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "asset" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "address" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "derivation_index" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "expected_base_units" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "rate" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "rate_source" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "payment_options" jsonb;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "selected_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "quote_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "locale" text;--> statement-breakpoint
CREATE INDEX "payments_watch_selected_idx" ON "payments" USING btree ("chain","is_test","selected_at") WHERE "payments"."selected_at" is not null;