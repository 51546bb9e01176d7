CREATE TABLE "chain_blocks" (
	"chain" text NOT NULL,
	"is_test" boolean NOT NULL,
	"number" bigint NOT NULL,
	"hash" text NOT NULL,
	"parent_hash" text NOT NULL,
	CONSTRAINT "chain_blocks_chain_is_test_number_pk" PRIMARY KEY("chain","is_test","number")
);
--> statement-breakpoint
CREATE TABLE "chain_cursors" (
	"chain" text NOT NULL,
	"is_test" boolean NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"block_time" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "chain_cursors_chain_is_test_pk" PRIMARY KEY("chain","is_test")
);
--> statement-breakpoint
CREATE TABLE "deposits" (
	"id" text PRIMARY KEY NOT NULL,
	"payment_id" uuid NOT NULL,
	"chain" text NOT NULL,
	"is_test" boolean NOT NULL,
	"tx_hash" text NOT NULL,
	"output_index" integer NOT NULL,
	"address" text NOT NULL,
	"asset" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"block_time" timestamp with time zone NOT NULL,
	"state" text NOT NULL,
	"simulated" boolean DEFAULT false NOT NULL,
	"forward_id" text,
	"seen_at" timestamp with time zone NOT NULL,
	"final_at" timestamp with time zone,
	"reverted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "forwards" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"chain" text NOT NULL,
	"is_test" boolean NOT NULL,
	"asset" text NOT NULL,
	"state" text NOT NULL,
	"payment_ids" jsonb NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"fee" numeric(78, 0) NOT NULL,
	"to_address" text,
	"raw_tx" text NOT NULL,
	"tx_hash" text NOT NULL,
	"block_number" bigint,
	"broadcast_count" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"broadcast_at" timestamp with time zone,
	"final_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "merchant_settings" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"underpayment_tolerance_percent" text DEFAULT '0' NOT NULL,
	"underpayment_tolerance_amount" text DEFAULT '0' NOT NULL,
	"overpayment_tolerance_percent" text DEFAULT '0' NOT NULL,
	"overpayment_tolerance_amount" text DEFAULT '0' NOT NULL,
	"default_window_seconds" integer NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payout_wallets" (
	"merchant_id" text NOT NULL,
	"is_test" boolean NOT NULL,
	"chain" text NOT NULL,
	"address" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payout_wallets_merchant_id_is_test_chain_pk" PRIMARY KEY("merchant_id","is_test","chain")
);
--> statement-breakpoint
CREATE TABLE "sim_blocks" (
	"chain" text NOT NULL,
	"number" bigint NOT NULL,
	"hash" text NOT NULL,
	"parent_hash" text NOT NULL,
	"timestamp" timestamp with time zone NOT NULL,
	CONSTRAINT "sim_blocks_chain_number_pk" PRIMARY KEY("chain","number")
);
--> statement-breakpoint
CREATE TABLE "sim_transfers" (
	"chain" text NOT NULL,
	"tx_hash" text NOT NULL,
	"output_index" integer NOT NULL,
	"kind" text NOT NULL,
	"to_address" text NOT NULL,
	"asset" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"block_number" bigint,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sim_transfers_chain_tx_hash_output_index_pk" PRIMARY KEY("chain","tx_hash","output_index")
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "forwarded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "forward_tx_hash" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "forward_fee_base_units" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "deposits" ADD CONSTRAINT "deposits_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forwards" ADD CONSTRAINT "forwards_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_settings" ADD CONSTRAINT "merchant_settings_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_wallets" ADD CONSTRAINT "payout_wallets_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "deposits_transfer_key" ON "deposits" USING btree ("chain","is_test","tx_hash","output_index");--> statement-breakpoint
CREATE INDEX "deposits_payment_idx" ON "deposits" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "deposits_unfinal_idx" ON "deposits" USING btree ("chain","is_test","block_number") WHERE state = 'seen';--> statement-breakpoint
CREATE INDEX "deposits_unforwarded_idx" ON "deposits" USING btree ("chain","is_test") WHERE state = 'final' and forward_id is null;--> statement-breakpoint
CREATE INDEX "forwards_open_idx" ON "forwards" USING btree ("chain","is_test","created_at") WHERE state in ('intent', 'broadcast');--> statement-breakpoint
CREATE INDEX "sim_transfers_block_idx" ON "sim_transfers" USING btree ("chain","block_number");--> statement-breakpoint
CREATE INDEX "payments_watch_idx" ON "payments" USING btree ("chain","is_test","created_at");