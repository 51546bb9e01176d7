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
ALTER TABLE "merchant_settings" ADD COLUMN "brand_name" text;--> statement-breakpoint
ALTER TABLE "merchant_settings" ADD COLUMN "accent_color" text;--> statement-breakpoint
ALTER TABLE "merchant_settings" ADD COLUMN "support_email" text;--> statement-breakpoint
ALTER TABLE "merchant_settings" ADD COLUMN "support_url" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "cancel_url" text;--> statement-breakpoint
ALTER TABLE "merchant_logos" ADD CONSTRAINT "merchant_logos_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_logos_sha256_key" ON "merchant_logos" USING btree ("sha256","merchant_id");