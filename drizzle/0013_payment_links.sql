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
ALTER TABLE "payments" ADD COLUMN "payment_link_id" text;--> statement-breakpoint
ALTER TABLE "payment_links" ADD CONSTRAINT "payment_links_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payment_links_merchant_idx" ON "payment_links" USING btree ("merchant_id","is_test","created_at");--> statement-breakpoint
CREATE INDEX "payments_link_idx" ON "payments" USING btree ("payment_link_id","id") WHERE "payments"."payment_link_id" is not null;