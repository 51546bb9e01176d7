CREATE TABLE "merchant_logos" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"content_type" text NOT NULL,
	"sha256" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"image_base64" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_links" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"is_test" boolean NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"amount" text,
	"currency" text NOT NULL,
	"chain" text,
	"asset" text,
	"success_url" text,
	"cancel_url" text,
	"locale" text,
	"active" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "chain" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "asset" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "address" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "derivation_index" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "expected_base_units" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "rate" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "rate_source" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "merchant_settings" ADD COLUMN "brand_name" text;--> statement-breakpoint
ALTER TABLE "merchant_settings" ADD COLUMN "accent_color" text;--> statement-breakpoint
ALTER TABLE "merchant_settings" ADD COLUMN "support_email" text;--> statement-breakpoint
ALTER TABLE "merchant_settings" ADD COLUMN "support_url" text;--> statement-breakpoint
ALTER TABLE "merchant_settings" ADD COLUMN "checkout_options" jsonb;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "payment_options" jsonb;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "selected_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "quote_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "payment_link_id" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "cancel_url" text;--> statement-breakpoint
ALTER TABLE "merchant_logos" ADD CONSTRAINT "merchant_logos_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_links" ADD CONSTRAINT "payment_links_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_logos_sha256_key" ON "merchant_logos" USING btree ("sha256","merchant_id");--> statement-breakpoint
CREATE INDEX "payment_links_merchant_idx" ON "payment_links" USING btree ("merchant_id","is_test","created_at");--> statement-breakpoint
CREATE INDEX "payments_link_idx" ON "payments" USING btree ("payment_link_id","id") WHERE "payments"."payment_link_id" is not null;--> statement-breakpoint
CREATE INDEX "payments_watch_selected_idx" ON "payments" USING btree ("chain","is_test","selected_at") WHERE "payments"."selected_at" is not null;