CREATE SEQUENCE "public"."deposit_index_bitcoin_live" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_index_bitcoin_test" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_index_evm_live" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_index_evm_test" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_index_litecoin_live" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_index_litecoin_test" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_index_solana_live" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_index_solana_test" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_index_tron_live" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_index_tron_test" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1;--> statement-breakpoint
DROP TABLE "deposit_index_counters" CASCADE;