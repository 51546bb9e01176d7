// Generated from the OpenAPI document svc serves (/v1/openapi.json) by openapi-typescript: do not edit.
// `npm run sdk:types` writes it again; test/sdk-types.test.ts fails while it is stale.
export interface paths {
    "/auth/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a merchant account (SVC_SIGNUP: open, invite or closed). An email that has an account logs in with its password and answers like a failed login otherwise, so the answer never tells whether it exists */
        post: operations["signUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/password-reset-request": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mail a one-time reset link (when the service has SMTP); the same answer whether or not the email has an account */
        post: operations["requestPasswordReset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/password-reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Set a new password with the token of a reset link (works once, within an hour) */
        post: operations["resetPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log in and get a dashboard token */
        post: operations["logIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/reauthenticate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enter the password again for a fresh token: changes of payout wallets need one from the last 10 minutes */
        post: operations["reauthenticate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The authenticated merchant */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/chains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the chains and assets payments can use (public, no key)
         * @description Each chain with its mainnet (live mode) and test network (test mode), its assets with decimals and token contracts, and the confirmations in effect.
         */
        get: operations["listChains"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/operator/fee-wallets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The instance's fee-paying wallets and their balances (operators' dashboard session only)
         * @description The wallets this instance pays sweep fees from on each connected chain (Solana’s fee payer, an EVM chain’s gas wallet) and the refund wallets it sends refunds of swept payments from (an EVM chain with `SVC_CHAIN_<NAME>_REFUND_WALLET=on`, with its token balances), each with its balance read now and whether it is too low (a refund wallet: it could not pay the last refund asked of it). They are the operator’s, shared by every merchant of the instance: only its operators (the first account and `SVC_OPERATOR_EMAILS`) may see them.
         */
        get: operations["listFeeWallets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/operator/sweep-costs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What the instance's sweeps cost in a month (operators' dashboard session only)
         * @description Per chain and mode, the sweeps that became final in the calendar month (UTC; the current one unless `month` says), the network fees they paid as the chain charged them (on Tron the TRX they burnt) and, on Tron, the energy they used and how much of it staked TRX lent. Read from the sweeps as they were recorded when final. Operators only: the fees come from the instance’s own wallets.
         */
        get: operations["getSweepCosts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keypairs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List keypairs (never the full keys) */
        get: operations["listKeypairs"];
        put?: never;
        /** Generate a keypair (a test key and a live key); each full key is shown only in this response */
        post: operations["createKeypair"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keypairs/{id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke a keypair: both its keys stop working at once */
        post: operations["revokeKeypair"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhook endpoints */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /** Register a webhook endpoint; its signing secret is shown only in this response */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a webhook endpoint */
        get: operations["getWebhookEndpoint"];
        put?: never;
        post?: never;
        /** Delete an endpoint; it receives nothing more */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /** Update the url, description or enabled flag of an endpoint */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the signing secret; the old one keeps signing for 24 hours */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List events, newest first */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an event with its exact webhook payload */
        get: operations["getEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the deliveries of an endpoint, newest first, each with every attempt */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/deliveries/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send the event of a delivery again as a fresh delivery with its own attempts */
        post: operations["redeliverWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/redeliver-failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Redeliver every failed delivery of the endpoint created since a time (not yet redelivered) */
        post: operations["redeliverFailedWebhookDeliveries"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a signed sample event (payment_id all zeros) to this endpoint */
        post: operations["sendTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow the key's events live (Server-Sent Events), each once, resumable with Last-Event-ID
         * @description Sends every event of the key's merchant and mode committed after the stream opened (or after the event named by `Last-Event-ID`), in order, exactly once each; `: heartbeat` comments keep an idle stream open. A merchant may hold SVC_EVENT_STREAM_MAX_PER_MERCHANT streams open per process (`429 stream_limit_reached` beyond).
         */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List payments, newest first, with cursor pagination and filters */
        get: operations["listPayments"];
        put?: never;
        /** Create a payment: its mode is the API key's, or with a dashboard token the `is_test` given; without `chain` the payer picks the chain and asset on the checkout */
        post: operations["createPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a payment with its deposits and events */
        get: operations["getPayment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/checkout/{payment_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public, read-only status of a payment for the hosted checkout (no key) */
        get: operations["getCheckoutView"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/checkout/{payment_id}/select": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The payer's pick of a chain and asset among a payment's `options` (no key): takes its deposit address and locks the rate for 15 minutes; repeated once that quote lapsed with nothing seen, it quotes again */
        post: operations["selectCheckoutOption"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/{id}/refunds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A payment's refunds, oldest first */
        get: operations["listPaymentRefunds"];
        put?: never;
        /** Refund (part of) what a payment received, in its asset or its currency; the payer gives an address on `refund_url` unless `address` is given. Refused (409) beyond received less the other refunds */
        post: operations["createRefund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refunds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List refunds, newest first, with cursor pagination */
        get: operations["listRefunds"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refunds/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a refund (with the fee estimate while it is not signed) */
        get: operations["getRefund"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refund-links/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public: a refund as its payer sees it through the refund link's token (no key) */
        get: operations["getRefundLink"];
        put?: never;
        /** Public: the payer gives the refund's address (checked for the chain: format, checksum, network, not a contract); the refund is then sent */
        post: operations["submitRefundAddress"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/exports/{kind}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Payments, deposits, sweeps, refunds or events of one mode as CSV or JSON Lines, streamed (any size): amounts exact, values at creation (locked rate) and at confirmation (the rate stored then), sweep and refund fees */
        get: operations["exportRecords"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/reports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The reports page’s figures: volume per day by chain and asset, conversion, median time to confirmation, sweep fees per month (default: the last 30 days) */
        get: operations["getReport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/{id}/simulate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * TEST MODE: simulate the payer (a deposit on the simulated chain) or the end of the window
         * @description Test payments only (a live one is refused with `not_test_mode`). The simulated deposit lands in the next simulated block (SVC_SIM_BLOCK_MS) and the payment walks through confirmations like a real one, sending its webhooks.
         */
        post: operations["simulatePayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/checkout/{payment_id}/simulate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * TEST MODE: simulate the payer from the hosted checkout (no key)
         * @description Public like the checkout view, and for test-mode payments only: a live payment is refused with `not_test_mode`. Same outcomes as `POST /payments/{id}/simulate` (without `amount_native`); the answer holds the public checkout view, never merchant data. A payment can be simulated here once: a second attempt is refused with `409 checkout_already_simulated` (the keyed simulate has no such limit). Rate-limited per IP like every public route, and besides per IP and per payment (SVC_CHECKOUT_SIMULATE_RATE_LIMIT a minute, `429 rate_limited`).
         */
        post: operations["simulateCheckoutPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Payment rules: under/overpayment tolerances and the default payment window */
        get: operations["getSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change payment rules (dashboard token only); fields left out keep their value */
        patch: operations["updateSettings"];
        trace?: never;
    };
    "/settings/payout-wallets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Payout wallets of the mode, by chain */
        get: operations["getPayoutWallets"];
        /** Set the payout wallets of the mode (the whole set; a dashboard token whose password was entered in the last 10 minutes only, see POST /auth/reauthenticate); each address is checked for its chain, and each change is recorded and announced as `payout_wallet.updated` */
        put: operations["setPayoutWallets"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/settings/logo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Set the checkout's logo (dashboard token only): the image as the body, `Content-Type` image/png, image/jpeg or image/webp, at most 256 KB and 16 to 2048 pixels a side; checked by its own bytes, never SVG; served at `logo_url` */
        put: operations["setLogo"];
        post?: never;
        /** Remove the checkout's logo (dashboard token only) */
        delete: operations["deleteLogo"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/settings/readiness": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The setup checklist of the mode: per chain, whether payments can be taken now (node, payout wallet, fee wallet) and what is missing */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/settings/payout-wallets/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every change of payout wallets, both modes, newest first (who, when, old → new, from where) */
        get: operations["listPayoutWalletChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payment-links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List payment links, newest first, each with its totals */
        get: operations["listPaymentLinks"];
        put?: never;
        /** Create a reusable payment link (its mode is the key’s, or `is_test` with a dashboard token): each visit that goes on to pay creates a payment with its terms */
        post: operations["createPaymentLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payment-links/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A payment link with its totals (its payments: GET /payments?payment_link_id=) */
        get: operations["getPaymentLink"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change a payment link’s title or description, or turn it off or on */
        patch: operations["updatePaymentLink"];
        trace?: never;
    };
    "/payment-links/{id}/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A visit that goes on to pay (public, no key): creates a payment with the link’s terms and answers its checkout address; limited per client IP (SVC_PAYMENT_LINK_RATE_LIMIT) */
        post: operations["payPaymentLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Merchant: {
            /** @description Merchant id, prefixed `mer_`. */
            id: string;
            /** Format: email */
            email: string;
            /** Format: date-time */
            created_at: string;
        };
        Accepted: {
            /** @constant */
            status: "accepted";
            message: string;
        };
        Session: {
            /** @description JWT for the dashboard API; send as `Authorization: Bearer <token>`. */
            token: string;
            /** Format: date-time */
            expires_at: string;
            merchant: components["schemas"]["Merchant"];
        };
        Chain: {
            /** @description Chain id used in payments, e.g. `ethereum`, `bitcoin`. */
            id: string;
            name: string;
            /** @enum {string} */
            family: "evm" | "bitcoin" | "solana" | "tron";
            /** @description The network of live mode. */
            mainnet: {
                name: string;
                /** @description EIP-155 chain id (EVM chains only). */
                evm_chain_id: number | null;
                /** @description Explorer link; `{tx}` stands for the transaction hash. */
                explorer_tx_url: string;
                /** @description Explorer link; `{address}` stands for the address. */
                explorer_address_url: string;
            };
            /** @description The network of test mode. */
            testnet: {
                name: string;
                /** @description EIP-155 chain id (EVM chains only). */
                evm_chain_id: number | null;
                /** @description Explorer link; `{tx}` stands for the transaction hash. */
                explorer_tx_url: string;
                /** @description Explorer link; `{address}` stands for the address. */
                explorer_address_url: string;
            };
            /** @description Code of the native coin: the default asset of a payment. */
            native_asset: string;
            /** @description Native coin first. */
            assets: {
                /** @description Asset code, e.g. `ETH`, `USDC`. */
                code: string;
                name: string;
                /** @description Base units per whole unit are 10^decimals (wei, satoshi, …). */
                decimals: number;
                is_native: boolean;
                /** @description Token contract (ERC-20, SPL mint, TRC-20) per network; null for the native coin. */
                contract: {
                    mainnet: string;
                    /** @description Null: not offered in test mode (no test deployment). */
                    testnet: string | null;
                } | null;
                pegged_to: "USD" | null;
            }[];
            /** @description Confirmations a deposit needs before the payment is confirmed. */
            confirmations: number;
            default_confirmations: number;
            block_time_seconds: number;
        };
        ChainList: {
            data: components["schemas"]["Chain"][];
        };
        ResourceStake: {
            /** @description TRX staked for energy, what is lent out included; exact decimal. */
            energy_staked_native: string;
            /** @description Of it, TRX lent to deposit addresses for the sweeps under way now. */
            energy_lent_native: string;
            /** @description TRX staked for bandwidth, what is lent out included. */
            bandwidth_staked_native: string;
            /** @description Of it, TRX lent to deposit addresses now. */
            bandwidth_lent_native: string;
            /** @description Energy units the stake not lent out gives now, an exact integer as a decimal string. */
            energy_available: string;
            /** @description Energy units one USDT sweep borrows (to a payout that already holds USDT), an exact integer as a decimal string. */
            energy_per_sweep: string;
            /** @description USDT sweeps the stake not lent out covers now. */
            sweeps_covered: number;
            /** @description Too little for the next sweep: USDT sweeps burn TRX instead (within MAX_BURN_TRX) until more TRX is staked for energy. */
            short: boolean;
        };
        FeeWallet: {
            chain: string;
            is_test: boolean;
            /** @description What the wallet pays for. */
            role: string;
            /** @description Fund this address in the chain’s native coin. */
            address: string;
            /** @description The native coin it holds and spends. */
            asset: string;
            /** @description Its balance now, exact decimal; null when the node could not be asked. */
            balance_native: string | null;
            /** @description The balance under which it counts as low; null when no fixed floor applies. */
            low_below_native: string | null;
            /** @description Too low now: sweeps wait, or will fail, until it is funded. */
            low: boolean;
            /** @description The address on the network’s explorer. */
            explorer_address_url: string;
            /** @description Tron’s resource wallet: the TRX it has staked (Stake 2.0) to lend energy to USDT sweeps; null when the node could not be asked, absent for other wallets. */
            stake?: components["schemas"]["ResourceStake"] | null;
            /** @description A refund wallet’s balances in the chain’s tokens (it refunds them from these); absent for other wallets. */
            token_balances?: {
                asset: string;
                /** @description Exact decimal; null when the node could not be asked. */
                balance_native: string | null;
            }[];
        };
        FeeWalletList: {
            data: components["schemas"]["FeeWallet"][];
        };
        SweepCost: {
            chain: string;
            is_test: boolean;
            /** @description The chain’s native coin, in which the fees are counted. */
            asset: string;
            /** @description Sweeps that became final in the month. */
            sweeps: number;
            /** @description Network fees they paid as the chain charged them (on Tron: the TRX they burnt), exact decimal. */
            fee_native: string;
            /** @description Energy units they used (Tron), exact; null on chains that charge none. */
            energy_used: string | null;
            /** @description Of `energy_used`, the units paid by staked TRX the resource wallet lent (the rest burnt TRX); null on chains that charge none. */
            energy_delegated: string | null;
        };
        SweepCostList: {
            /** @description The calendar month (UTC), YYYY-MM. */
            month: string;
            /** @description One entry per chain and mode that swept in the month. */
            data: components["schemas"]["SweepCost"][];
        };
        CreatedKeypair: {
            keypair_id: string;
            test: {
                /** @description The full key, prefixed `svc_test_`. Shown only once. */
                full_key: string;
                /** @constant */
                is_test: true;
            };
            live: {
                /** @description The full key, prefixed `svc_live_`. Shown only once. */
                full_key: string;
                /** @constant */
                is_test: false;
            };
            /** Format: date-time */
            created_at: string;
        };
        Keypair: {
            keypair_id: string;
            test: {
                /** @description The first characters of the key, for recognising it. */
                display_prefix: string;
                last4: string;
                is_test: boolean;
            };
            live: {
                /** @description The first characters of the key, for recognising it. */
                display_prefix: string;
                last4: string;
                is_test: boolean;
            };
            /** Format: date-time */
            created_at: string;
            revoked: boolean;
            revoked_at: string | null;
        };
        KeypairList: {
            data: components["schemas"]["Keypair"][];
        };
        /** @description The exact JSON body every delivery of a payment event sends. */
        WebhookPayload: {
            /** @enum {string} */
            event: "payment.confirmed" | "payment.completed" | "payment.expired" | "payment.underpaid" | "payment.overpaid";
            payment_id: string;
            status: string;
            /** @description Decimal amount in the payment currency (a JSON number, written exactly; a double keeps only 15–17 digits). */
            amount: number;
            /** @description The same amount as an exact decimal string. Absent only from events recorded before it existed. */
            amount_decimal?: string;
            currency: string;
            chain: string;
            /** @description Transaction hash; `""` when the payment has none. null only in events recorded before that rule. */
            tx_hash: string | null;
            received_amount_native: string;
            expected_amount_native: string;
            is_test: boolean;
            /** Format: date-time */
            timestamp: string;
        };
        /** @description The body of `payout_wallet.updated`: the payout wallets of a mode changed. */
        PayoutWalletUpdatedPayload: {
            /** @constant */
            event: "payout_wallet.updated";
            is_test: boolean;
            changes: {
                chain: string;
                /** @description null: the chain had no payout wallet. */
                old_address: string | null;
                /** @description null: the chain has no payout wallet any more. */
                new_address: string | null;
            }[];
            /** @description The account whose re-authenticated dashboard session made the change. */
            changed_by: string;
            /** Format: date-time */
            timestamp: string;
        };
        /** @description The body of `webhook_endpoint.failing` (an endpoint failed `SVC_WEBHOOK_BREAKER_FAILURES` attempts in a row: its deliveries now wait while one probe at a time is sent, with growing pauses) and `webhook_endpoint.recovered` (a probe succeeded: everything held back is due at once). */
        WebhookEndpointHealthPayload: {
            /** @enum {string} */
            event: "webhook_endpoint.failing" | "webhook_endpoint.recovered";
            is_test: boolean;
            endpoint_id: string;
            url: string;
            /** @description Failed attempts in a row when the breaker opened; 0 once it has closed. */
            consecutive_failures: number;
            /**
             * Format: date-time
             * @description When the breaker opened.
             */
            failing_since: string;
            /** @description When the next single probe goes out (`failing`); null once recovered. */
            next_probe_at: string | null;
            /** Format: date-time */
            timestamp: string;
        };
        /** @description The body of `refund.created` (a refund was asked for), `refund.sent` (its transaction has its confirmations, or the merchant's own payment of it was seen) and `refund.failed` (it cannot be sent; its amount is refundable again). */
        RefundPayload: {
            /** @enum {string} */
            event: "refund.created" | "refund.sent" | "refund.failed";
            /** @description Refund id, prefixed `rf_`. */
            refund_id: string;
            payment_id: string;
            /** @description The refund's status at the moment of the event. */
            status: string;
            chain: string;
            asset: string;
            /** @description Decimal amount of `asset` taken out of the payment's received amount. */
            amount_native: string;
            /** @description What reaches the payer: the amount less the network fee when that is paid in `asset`; null before signing. */
            sent_amount_native: string | null;
            /** @description The network fee in the chain's native coin; null before signing. */
            fee_native: string | null;
            /** @description Where it is sent from; null before that is chosen. */
            source: ("deposit" | "refund_wallet" | "merchant") | null;
            /** @description The payer's address; null until they gave it. */
            to_address: string | null;
            tx_hash: string | null;
            reason: string | null;
            /** @description Why it failed (`refund.failed`), else null. */
            error: string | null;
            is_test: boolean;
            /** Format: date-time */
            timestamp: string;
        };
        Event: {
            /** @description Event id, prefixed `evt_`; also the `webhook-id` and `X-Service-Event-Id` of deliveries. */
            id: string;
            type: string;
            is_test: boolean;
            /** @description null for events that are not about a payment. */
            payment_id: string | null;
            /** @description True for the signed samples of `POST /webhooks/{id}/test`. */
            sample: boolean;
            /** Format: date-time */
            created_at: string;
            payload: components["schemas"]["WebhookPayload"] | components["schemas"]["RefundPayload"] | components["schemas"]["PayoutWalletUpdatedPayload"] | components["schemas"]["WebhookEndpointHealthPayload"];
        };
        EventList: {
            data: components["schemas"]["Event"][];
            has_more: boolean;
        };
        WebhookAttempt: {
            attempt: number;
            /** Format: date-time */
            started_at: string;
            duration_ms: number;
            status_code: number | null;
            success: boolean;
            /** @description The first 2 KB of the response body; never kept for private targets (loopback, trusted networks). */
            response_body: string | null;
            error: string | null;
        };
        WebhookDelivery: {
            /** @description Delivery id, prefixed `del_`. */
            id: string;
            event_id: string;
            event_type: string;
            endpoint_id: string;
            is_test: boolean;
            /**
             * @description `canceled`: the endpoint was disabled or deleted before the delivery was sent.
             * @enum {string}
             */
            status: "pending" | "succeeded" | "failed" | "canceled";
            attempt_count: number;
            next_attempt_at: string | null;
            last_status_code: number | null;
            last_error: string | null;
            redelivery_of: string | null;
            /** Format: date-time */
            created_at: string;
            completed_at: string | null;
            attempts: components["schemas"]["WebhookAttempt"][];
        };
        WebhookDeliveryList: {
            data: components["schemas"]["WebhookDelivery"][];
            has_more: boolean;
        };
        RedeliverFailedResult: {
            redelivered: number;
            delivery_ids: string[];
        };
        WebhookTestDelivery: {
            event: components["schemas"]["Event"];
            delivery: components["schemas"]["WebhookDelivery"];
        };
        Payment: {
            /** @description UUID (v7: sorts by creation time). */
            payment_id: string;
            /** @enum {string} */
            status: "pending" | "confirming" | "completed" | "underpaid" | "overpaid" | "expired";
            /** @description Exact decimal amount in `currency`. */
            amount: string;
            currency: string;
            /** @description Chain id. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            chain: string | null;
            /** @description Asset code. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            asset: string | null;
            /** @description The deposit address of this payment alone. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            address: string | null;
            /** @description Decimal amount of `asset` to send: converted from `currency` and rounded up to what wallets show (6 decimals, 8 for BTC and LTC), or exactly `amount` when `currency` is the asset. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            expected_amount_native: string | null;
            received_amount_native: string;
            /** @description What is still due. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            remaining_amount_native: string | null;
            /** @description Hash of the latest deposit, null before any. */
            tx_hash: string | null;
            /** @description `currency` per one `asset`, locked at creation or at the payer's pick. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            rate: {
                value: string;
                source: string;
            } | null;
            /**
             * @description Who chooses the chain and asset: the merchant at creation (`chain` given), or the payer on the checkout.
             * @enum {string}
             */
            chosen_by: "merchant" | "payer";
            /** @description When the payer picked the chain and asset; null before, and for a payment whose merchant named them. */
            selected_at: string | null;
            /** @description When the rate locked at the payer's pick lapses (15 minutes, at most the window): a payment still waiting for funds then gets a new quote for the same address when the payer asks. Null when the merchant named the chain (the rate holds for the whole window) and before a pick. */
            quote_expires_at: string | null;
            /** @description Confirmations of the least-confirmed unfinal deposit (all required once every deposit is final; 0 before any). */
            confirmations: {
                seen: number;
                required: number;
            };
            is_test: boolean;
            order_id: string | null;
            /** @description The payer's email given at creation, if any. */
            customer_email: string | null;
            /** @description Up to 50 keys (at most 40 characters each) with string values of at most 500 characters. */
            metadata: {
                [key: string]: string;
            };
            redirect_url: string | null;
            /** @description The return address after completion (as `redirect_url`). */
            success_url: string | null;
            /** @description The payment link whose visit created it (`plink_…`), if any. */
            payment_link_id: string | null;
            cancel_url: string | null;
            /** @description The checkout's language (null: the payer's browser decides). */
            locale: ("en" | "es" | "de" | "fr" | "pt" | "zh" | "ar") | null;
            checkout_url: string;
            /** @description A wallet link (EIP-681, BIP-21, Solana Pay, Tron). Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            payment_uri: string | null;
            /** @description When the latest forwarding transaction to the payout wallet became final. */
            forwarded_at: string | null;
            /** @description Hash of that forwarding transaction. */
            forward_tx_hash: string | null;
            /** @description Network fees paid to forward this payment's funds, in the chain's native coin (its share when batched). */
            forward_fee_native: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string;
        };
        Deposit: {
            /** @description Deposit id, prefixed `dep_`. */
            id: string;
            tx_hash: string;
            /** @description Output (UTXO chains) or log index (account chains) in the transaction. */
            output_index: number;
            asset: string;
            amount_native: string;
            /** @description Null while the transaction waits in the mempool. */
            block_number: number | null;
            /** @description Null while the transaction waits in the mempool. */
            block_hash: string | null;
            /**
             * @description `mempool` (UTXO chains: broadcast, not in a block yet), `seen` (in a block, not final yet), `final`, or `reverted` (its block was reorganised away, or its transaction was replaced or double-spent).
             * @enum {string}
             */
            state: "mempool" | "seen" | "final" | "reverted";
            confirmations: number;
            confirmations_required: number;
            /** @description Whether it is in the payment's asset and so counts towards received. */
            counted: boolean;
            /** @description A test-mode deposit on the simulated chain. */
            simulated: boolean;
            /** @description Block explorer link (null on the simulated chain). */
            explorer_url: string | null;
            /** Format: date-time */
            seen_at: string;
            final_at: string | null;
            reverted_at: string | null;
            /** @description When the forwarder last left this final deposit in place because it is worth less than the network fee to spend it (UTXO chains): it stays at the deposit address, is priced again every ten minutes and swept once the fee allows; null otherwise. */
            left_as_dust_at: string | null;
        };
        PaymentDetail: {
            /** @description UUID (v7: sorts by creation time). */
            payment_id: string;
            /** @enum {string} */
            status: "pending" | "confirming" | "completed" | "underpaid" | "overpaid" | "expired";
            /** @description Exact decimal amount in `currency`. */
            amount: string;
            currency: string;
            /** @description Chain id. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            chain: string | null;
            /** @description Asset code. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            asset: string | null;
            /** @description The deposit address of this payment alone. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            address: string | null;
            /** @description Decimal amount of `asset` to send: converted from `currency` and rounded up to what wallets show (6 decimals, 8 for BTC and LTC), or exactly `amount` when `currency` is the asset. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            expected_amount_native: string | null;
            received_amount_native: string;
            /** @description What is still due. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            remaining_amount_native: string | null;
            /** @description Hash of the latest deposit, null before any. */
            tx_hash: string | null;
            /** @description `currency` per one `asset`, locked at creation or at the payer's pick. Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            rate: {
                value: string;
                source: string;
            } | null;
            /**
             * @description Who chooses the chain and asset: the merchant at creation (`chain` given), or the payer on the checkout.
             * @enum {string}
             */
            chosen_by: "merchant" | "payer";
            /** @description When the payer picked the chain and asset; null before, and for a payment whose merchant named them. */
            selected_at: string | null;
            /** @description When the rate locked at the payer's pick lapses (15 minutes, at most the window): a payment still waiting for funds then gets a new quote for the same address when the payer asks. Null when the merchant named the chain (the rate holds for the whole window) and before a pick. */
            quote_expires_at: string | null;
            /** @description Confirmations of the least-confirmed unfinal deposit (all required once every deposit is final; 0 before any). */
            confirmations: {
                seen: number;
                required: number;
            };
            is_test: boolean;
            order_id: string | null;
            /** @description The payer's email given at creation, if any. */
            customer_email: string | null;
            /** @description Up to 50 keys (at most 40 characters each) with string values of at most 500 characters. */
            metadata: {
                [key: string]: string;
            };
            redirect_url: string | null;
            /** @description The return address after completion (as `redirect_url`). */
            success_url: string | null;
            /** @description The payment link whose visit created it (`plink_…`), if any. */
            payment_link_id: string | null;
            cancel_url: string | null;
            /** @description The checkout's language (null: the payer's browser decides). */
            locale: ("en" | "es" | "de" | "fr" | "pt" | "zh" | "ar") | null;
            checkout_url: string;
            /** @description A wallet link (EIP-681, BIP-21, Solana Pay, Tron). Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null). */
            payment_uri: string | null;
            /** @description When the latest forwarding transaction to the payout wallet became final. */
            forwarded_at: string | null;
            /** @description Hash of that forwarding transaction. */
            forward_tx_hash: string | null;
            /** @description Network fees paid to forward this payment's funds, in the chain's native coin (its share when batched). */
            forward_fee_native: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string;
            deposits: components["schemas"]["Deposit"][];
            /** @description The payment’s events (at most 100), oldest first. */
            events: components["schemas"]["Event"][];
        };
        SimulatedPayment: {
            /** @enum {string} */
            outcome: "paid" | "underpaid" | "overpaid" | "expired";
            /** @description The simulated transfer, now in the simulated mempool (null for `expired`). */
            deposit: {
                tx_hash: string;
                output_index: number;
                address: string;
                asset: string;
                amount_native: string;
            } | null;
            payment: components["schemas"]["Payment"];
        };
        PaymentList: {
            data: components["schemas"]["Payment"][];
            has_more: boolean;
            next_cursor: string | null;
        };
        CheckoutOption: {
            chain: string;
            chain_name: string;
            network: string;
            asset: string;
            asset_name: string;
            /** @description What the payment comes to in this asset at the current rate (locked only once picked). */
            amount_native: string;
        };
        CheckoutView: {
            payment_id: string;
            /** @enum {string} */
            status: "pending" | "confirming" | "completed" | "underpaid" | "overpaid" | "expired";
            amount: string;
            currency: string;
            chain: string | null;
            chain_name: string | null;
            /** @description The network to send on, named plainly (e.g. "Ethereum Sepolia testnet"). */
            network: string | null;
            asset: string | null;
            asset_decimals: number | null;
            address: string | null;
            expected_amount_native: string | null;
            received_amount_native: string;
            remaining_amount_native: string | null;
            payment_uri: string | null;
            /**
             * @description Who chooses the chain and asset: the merchant at creation (`chain` given), or the payer on the checkout.
             * @enum {string}
             */
            chosen_by: "merchant" | "payer";
            /** @description When the payer picked the chain and asset; null before, and for a payment whose merchant named them. */
            selected_at: string | null;
            /** @description When the rate locked at the payer's pick lapses (15 minutes, at most the window): a payment still waiting for funds then gets a new quote for the same address when the payer asks. Null when the merchant named the chain (the rate holds for the whole window) and before a pick. */
            quote_expires_at: string | null;
            /** @description What the payer may pick from (POST /v1/payments/checkout/{payment_id}/select), each priced now; empty once picked, when the merchant chose, and once the payment no longer awaits a pick. */
            options: components["schemas"]["CheckoutOption"][];
            /** Format: date-time */
            expires_at: string;
            /** @description Confirmations of the least-confirmed unfinal deposit (all required once every deposit is final; 0 before any). */
            confirmations: {
                seen: number;
                required: number;
            };
            is_test: boolean;
            redirect_url: string | null;
            cancel_url: string | null;
            /** @description What the merchant chose to show payers (null: nothing). */
            merchant: {
                name: string | null;
                logo_url: string | null;
                accent_color: string | null;
                support_email: string | null;
                support_url: string | null;
            } | null;
            /** @description The latest deposit’s transaction, null before any. */
            tx_hash: string | null;
            /** @description The checkout's language set at creation (null: the payer's browser decides). */
            locale: string | null;
        };
        CheckoutSimulation: {
            /** @enum {string} */
            outcome: "paid" | "underpaid" | "overpaid" | "expired";
            /** @description The simulated transfer, now in the simulated mempool (null for `expired`). */
            deposit: {
                tx_hash: string;
                output_index: number;
                address: string;
                asset: string;
                amount_native: string;
            } | null;
            /** @description The public checkout view right after the simulation. */
            checkout: components["schemas"]["CheckoutView"];
        };
        PaymentLink: {
            /** @description Payment link id, prefixed `plink_`. */
            id: string;
            /** @description The public page to share (`/l/{id}`). */
            url: string;
            is_test: boolean;
            title: string;
            description: string | null;
            /** @description null: the payer enters the amount. */
            amount: string | null;
            currency: string;
            /** @description null: the payer picks the coin. */
            chain: string | null;
            asset: string | null;
            success_url: string | null;
            cancel_url: string | null;
            locale: string | null;
            active: boolean;
            /** @description GET /v1/payments?payment_link_id= lists the payments. */
            totals: {
                /** @description Payments its visits created. */
                payments: number;
                /** @description Of those, completed or overpaid. */
                paid: number;
                /** @description What the paid ones add up to, in `currency`. */
                paid_amount: string;
            };
            /** Format: date-time */
            created_at: string;
        };
        PaymentLinkList: {
            data: components["schemas"]["PaymentLink"][];
        };
        PaymentLinkPayment: {
            payment_id: string;
            checkout_url: string;
        };
        Refund: {
            /** @description Refund id, prefixed `rf_`. */
            id: string;
            payment_id: string;
            /**
             * @description `awaiting_address` (the payer has not given an address yet) → `queued` → `pending` (signed, stored, not yet sent) → `broadcast` → `sent`; `awaiting_payment` (the funds were swept: the merchant pays it, see `payment_request`) → `sent`; or `failed` (its amount is refundable again).
             * @enum {string}
             */
            status: "awaiting_address" | "queued" | "pending" | "broadcast" | "awaiting_payment" | "sent" | "failed";
            chain: string;
            asset: string;
            /** @description Decimal amount of `asset` taken out of the payment's received amount. */
            amount_native: string;
            /** @description The payment's currency when the refund was asked for in it. */
            currency: string | null;
            /** @description The amount asked for in `currency`. */
            currency_amount: string | null;
            /** @description `deposit`: sent from the payment's deposit address (the funds were still there); `refund_wallet`: from the chain's refund wallet; `merchant`: the merchant pays it from their own wallet. null until chosen. */
            source: ("deposit" | "refund_wallet" | "merchant") | null;
            to_address: string | null;
            from_address: string | null;
            /** @description What reaches the payer: the amount less the network fee when that is paid in `asset`. */
            sent_amount_native: string | null;
            /** @description The network fee, in the chain's native coin. */
            fee_native: string | null;
            /** @description Before it is signed: the fee a refund of this asset would pay now (native coin). */
            fee_estimate_native: string | null;
            tx_hash: string | null;
            explorer_url: string | null;
            /** @description The link where the payer gives their address (and sees the refund). */
            refund_url: string;
            /** @description `awaiting_payment`: what the merchant pays from their own wallet (a wallet opens the URI). */
            payment_request: {
                uri: string;
                amount_native: string;
                to_address: string;
            } | null;
            reason: string | null;
            /** @description Created by the merchant's auto-refund of overpaid excess. */
            automatic: boolean;
            last_error: string | null;
            is_test: boolean;
            /** Format: date-time */
            created_at: string;
            sent_at: string | null;
            failed_at: string | null;
        };
        RefundList: {
            data: components["schemas"]["Refund"][];
            has_more: boolean;
            next_cursor: string | null;
        };
        RefundLinkView: {
            id: string;
            /** @enum {string} */
            status: "awaiting_address" | "queued" | "pending" | "broadcast" | "awaiting_payment" | "sent" | "failed";
            chain: string;
            chain_name: string;
            network: string;
            asset: string;
            amount_native: string;
            fee_estimate_native: string | null;
            native_asset: string;
            /** @description True when the network fee comes out of the refund itself (a refund of the native coin). */
            fee_paid_from_refund: boolean;
            to_address: string | null;
            sent_amount_native: string | null;
            tx_hash: string | null;
            explorer_url: string | null;
            is_test: boolean;
        };
        Report: {
            /** Format: date-time */
            from: string;
            /** Format: date-time */
            to: string;
            is_test: boolean;
            /** @description Days with at least one payment, oldest first. */
            volume_by_day: {
                /** @description UTC day, YYYY-MM-DD, of the payments’ creation. */
                day: string;
                chain: string;
                asset: string;
                /** @description What the paid payments (completed, overpaid) of the day received. */
                received_native: string;
                paid: number;
                created: number;
            }[];
            /** @description Payments created in the period and those of them paid (completed or overpaid). */
            conversion: {
                created: number;
                paid: number;
                /** @description paid / created; null without payments. */
                ratio: number | null;
            };
            /** @description Median time from creation to the payment being paid (its first confirmed or overpaid event). */
            median_seconds_to_confirmation: number | null;
            /** @description Network fees of final sweeps, in the chain’s native coin. */
            sweep_fees_by_month: {
                /** @description UTC month, YYYY-MM, of the sweeps’ finality. */
                month: string;
                chain: string;
                native_asset: string;
                fee_native: string;
                sweeps: number;
            }[];
        };
        /** @description Payout address per chain id, e.g. {"ethereum": "0x…", "bitcoin": "bc1q…"}. */
        PayoutWallets: {
            [key: string]: string;
        };
        /** @description A payment counts as paid when it received at least expected − max(percent, amount) and at most expected + max(percent, amount) of the matching tolerance. Both default to 0 (exact). */
        MerchantSettings: {
            brand_name: string | null;
            accent_color: string | null;
            support_email: string | null;
            support_url: string | null;
            /** @description The `chain:ASSET` pairs offered to payers who pick the coin (payments created without `chain`); null: every pair this instance can take in the payment’s mode. */
            checkout_options: string[] | null;
            /** @description The checkout’s logo on this origin (PUT /v1/settings/logo), or null. */
            logo_url: string | null;
            /** @description Percent of the expected amount, as a decimal string: "0.5" is 0.5 %. 0 to 50. */
            underpayment_tolerance_percent: string;
            /** @description An amount in each payment's own currency, as a decimal string (converted at the payment's locked rate). */
            underpayment_tolerance_amount: string;
            /** @description Percent of the expected amount, as a decimal string: "0.5" is 0.5 %. 0 to 50. */
            overpayment_tolerance_percent: string;
            /** @description An amount in each payment's own currency, as a decimal string (converted at the payment's locked rate). */
            overpayment_tolerance_amount: string;
            /** @description Window, in seconds, of payments created without `expires_in`. */
            default_expires_in: number;
            /** @description Overpaid excess is refunded on its own: a refund of received − expected is created when a payment is overpaid, and sent as soon as the payer gives an address on its refund link. */
            auto_refund_overpaid: boolean;
            updated_at: string | null;
        };
        PayoutWalletChange: {
            /** @description Change id, prefixed `pwc_`. */
            id: string;
            is_test: boolean;
            chain: string;
            /** @description null: the chain had no payout wallet. */
            old_address: string | null;
            /** @description null: the change removed the payout wallet. */
            new_address: string | null;
            /** @description The account whose dashboard session made the change. */
            actor: string;
            /** @description The client address of the request. */
            ip: string | null;
            /** Format: date-time */
            created_at: string;
        };
        PayoutWalletChangeList: {
            data: components["schemas"]["PayoutWalletChange"][];
        };
        Readiness: {
            is_test: boolean;
            /** @description The mode’s mnemonic is set on the server (live: SVC_MNEMONIC); without it nothing can be paid. */
            seed_configured: boolean;
            chains: {
                chain: string;
                name: string;
                /**
                 * @description A node is connected and keeping up (test mode: the simulator or a test network).
                 * @enum {string}
                 */
                node: "ok" | "unhealthy" | "not_configured";
                /** @description What is wrong with the node, when `unhealthy`. */
                node_problem: string | null;
                /** @description A payout wallet is set for the chain in this mode. */
                payout_wallet: boolean;
                /**
                 * @description The instance's sweep-fee wallet for the chain: `none` where the chain needs none here.
                 * @enum {string}
                 */
                fee_wallet: "funded" | "low" | "none";
                /** @description Payments on this chain can be taken and swept now. */
                ready: boolean;
                /** @description What to do before it is ready. */
                missing: ("seed" | "node" | "node_healthy" | "payout_wallet" | "fee_wallet")[];
            }[];
        };
        WebhookEndpoint: {
            /** @description Endpoint id, prefixed `we_`. */
            id: string;
            url: string;
            is_test: boolean;
            enabled: boolean;
            description: string | null;
            /** @description Failed attempts in a row; a success resets it. At SVC_WEBHOOK_BREAKER_FAILURES the endpoint trips. */
            consecutive_failures: number;
            /** @description Set while the endpoint keeps failing: deliveries then wait and one probe at a time is sent, with a growing back-off, until one succeeds. */
            tripped_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        WebhookEndpointWithSecret: {
            /** @description Endpoint id, prefixed `we_`. */
            id: string;
            url: string;
            is_test: boolean;
            enabled: boolean;
            description: string | null;
            /** @description Failed attempts in a row; a success resets it. At SVC_WEBHOOK_BREAKER_FAILURES the endpoint trips. */
            consecutive_failures: number;
            /** @description Set while the endpoint keeps failing: deliveries then wait and one probe at a time is sent, with a growing back-off, until one succeeds. */
            tripped_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description `whsec_` + base64 of 32 random bytes. Shown only in this response; it signs every delivery. */
            signing_secret: string;
        };
        RotatedWebhookSecret: {
            /** @description Endpoint id, prefixed `we_`. */
            id: string;
            url: string;
            is_test: boolean;
            enabled: boolean;
            description: string | null;
            /** @description Failed attempts in a row; a success resets it. At SVC_WEBHOOK_BREAKER_FAILURES the endpoint trips. */
            consecutive_failures: number;
            /** @description Set while the endpoint keeps failing: deliveries then wait and one probe at a time is sent, with a growing back-off, until one succeeds. */
            tripped_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description `whsec_` + base64 of 32 random bytes. Shown only in this response; it signs every delivery. */
            signing_secret: string;
            /**
             * Format: date-time
             * @description Until then deliveries are also signed with the previous secret (Standard Webhooks header).
             */
            previous_secret_expires_at: string;
        };
        WebhookEndpointList: {
            data: components["schemas"]["WebhookEndpoint"][];
        };
        /** @description Every error answer of the API. */
        Error: {
            error: {
                /**
                 * @description From the closed list of codes.
                 * @enum {string}
                 */
                code: "invalid_request" | "invalid_json" | "parameter_invalid" | "parameter_missing" | "parameter_unknown" | "mode_mismatch" | "weak_password" | "unsupported_chain" | "unsupported_asset" | "payout_wallet_missing" | "live_seed_missing" | "chain_unavailable" | "not_test_mode" | "private_target_not_allowed" | "endpoint_limit_reached" | "refunds_unsupported" | "refund_address_invalid" | "refund_too_small" | "refund_exceeds_received" | "invalid_state" | "authentication_required" | "invalid_api_key" | "invalid_token" | "invalid_credentials" | "forbidden" | "reauthentication_required" | "signup_closed" | "invite_invalid" | "reset_token_invalid" | "not_found" | "route_not_found" | "method_not_allowed" | "request_timeout" | "email_taken" | "idempotency_conflict" | "idempotency_in_progress" | "checkout_already_simulated" | "payload_too_large" | "uri_too_long" | "unsupported_media_type" | "headers_too_large" | "rate_limited" | "stream_limit_reached" | "internal_error" | "rate_unavailable" | "derivation_mismatch" | "service_unavailable";
                /** @description For people; may change. */
                message: string;
                /** @description The parameter at fault, when there is one. */
                param?: string;
                /** @description Also in the `x-request-id` header. */
                request_id: string;
            };
        };
    };
    responses: {
        /** @description A parameter is missing, unknown or invalid, or the body is not JSON. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The API key or token is missing, invalid or revoked. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such resource (or it belongs to another merchant or mode). */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is larger than 64 KB. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is not application/json. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Too many requests; see `Retry-After`. */
        RateLimited: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    signUp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                    password: string;
                    /** @description The operator's invite (`svc invite`), when SVC_SIGNUP=invite. */
                    invite?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["BadRequest"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    requestPasswordReset: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Accepted"];
                };
            };
            400: components["responses"]["BadRequest"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    resetPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The token of the reset link. */
                    token: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Accepted"];
                };
            };
            400: components["responses"]["BadRequest"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    logIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["BadRequest"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    reauthenticate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Merchant"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    listChains: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChainList"];
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    listFeeWallets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FeeWalletList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    getSweepCosts: {
        parameters: {
            query?: {
                /** @description The calendar month (UTC), YYYY-MM; the current one when absent. */
                month?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SweepCostList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    listKeypairs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeypairList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    createKeypair: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedKeypair"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    revokeKeypair: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Keypair"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: {
                /** @description With a dashboard token: only this mode. A key always sees its own. */
                is_test?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Absolute http(s) URL; live endpoints must use https. */
                    url: string;
                    /** @description Mode. With an API key it defaults to the key's mode and must agree. */
                    is_test?: boolean;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    getWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url?: string;
                    description?: string | null;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RotatedWebhookSecret"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                limit?: number;
                /** @description An event id: list the events older than it. */
                starting_after?: string;
                type?: "payment.confirmed" | "payment.completed" | "payment.expired" | "payment.underpaid" | "payment.overpaid" | "refund.created" | "refund.sent" | "refund.failed" | "payout_wallet.updated" | "webhook_endpoint.failing" | "webhook_endpoint.recovered";
                payment_id?: string;
                /** @description With a dashboard token: only this mode. A key always sees its own. */
                is_test?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    getEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Event"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                limit?: number;
                /** @description A delivery id: list the deliveries older than it. */
                starting_after?: string;
                status?: "pending" | "succeeded" | "failed" | "canceled";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    redeliverWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    redeliverFailedWebhookDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date-time
                     * @description Redeliver failed deliveries created at or after this time.
                     */
                    since: string;
                    /**
                     * Format: date-time
                     * @description … and before this time (default: now).
                     */
                    until?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RedeliverFailedResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    sendTestWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The event type of the sample (default payment.confirmed).
                     * @enum {string}
                     */
                    event?: "payment.confirmed" | "payment.completed" | "payment.expired" | "payment.underpaid" | "payment.overpaid";
                } | null;
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookTestDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                /** @description Comma-separated event types to send (default: every type), e.g. `payment.confirmed,payment.expired`. */
                types?: string;
            };
            header?: {
                /** @description The id of the last event received: the stream resumes right after it (EventSource sends it itself). */
                "last-event-id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    listPayments: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Cursor: next_cursor of the previous page. */
                starting_after?: string;
                status?: "pending" | "confirming" | "completed" | "underpaid" | "overpaid" | "expired";
                order_id?: string;
                created_gte?: string;
                created_lt?: string;
                /** @description With a dashboard token: only this mode. */
                is_test?: "true" | "false";
                /** @description Only the payments of this payment link. */
                payment_link_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    createPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description Retry-safe creation: the same key and body return the first response; another body is a 409. */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Amount in `currency`, as a decimal string ("19.99"); a JSON number is accepted up to 15 significant digits. */
                    amount: string | number;
                    /** @description A fiat code (USD, EUR, …) or an asset code (BTC, USDC, …). */
                    currency: string;
                    /** @description Chain id from GET /v1/chains, e.g. `ethereum`, `bitcoin`, `solana`. Left out, the payer picks the chain and asset on the checkout among those this merchant can take in the mode (live: connected chains with a payout wallet), and the address and rate are set then. */
                    chain?: string;
                    /** @description The asset the payer sends; defaults to the chain's native coin. Without `chain`: offer only this asset (on every chain that carries it). */
                    asset?: string;
                    /** @description The mode: required with a dashboard token; with an API key it may be left out and must match the key. */
                    is_test?: boolean;
                    order_id?: string;
                    /**
                     * Format: email
                     * @description The payer's email, when the merchant knows it: with SMTP configured (SVC_SMTP_URL) the payer is mailed a receipt once the payment is paid, and the link of any refund that waits for their address. Never shown on the checkout nor sent in webhooks.
                     */
                    customer_email?: string;
                    /** @description Up to 50 keys (at most 40 characters each) with string values of at most 500 characters. */
                    metadata?: {
                        [key: string]: string;
                    };
                    /** @description Seconds until the payment window closes: 60 to 604800; default 1800 (or the merchant setting). */
                    expires_in?: number;
                    /** @description Where the checkout sends the payer after completion (the same as `success_url`). */
                    redirect_url?: string;
                    /** @description Where the checkout’s return button sends the payer after completion (http or https). */
                    success_url?: string;
                    /** @description Where the checkout sends a payer who gives up, or whose window ended (http or https). */
                    cancel_url?: string;
                    /**
                     * @description The checkout's language: `en`, `es`, `de`, `fr`, `pt`, `zh` or `ar` (right to left). Left out, the payer's browser decides (Accept-Language); `?locale=` on the checkout link overrides both.
                     * @enum {string}
                     */
                    locale?: "en" | "es" | "de" | "fr" | "pt" | "zh" | "ar";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    getPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentDetail"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    getCheckoutView: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                payment_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutView"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    selectCheckoutOption: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                payment_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A chain id among the payment’s `options`. */
                    chain: string;
                    /** @description An asset code among the payment’s `options` on that chain. */
                    asset: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutView"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    listPaymentRefunds: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Refund"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    createRefund: {
        parameters: {
            query?: never;
            header?: {
                /** @description Retry-safe: the same key and body return the first refund (200); another body is a 409. */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Decimal amount to give back, in `currency`; left out: everything still refundable (received less earlier refunds not failed). */
                    amount?: string;
                    /** @description The payment's asset (default) or the payment's own currency (USD, …): converted to the asset at the payment's locked rate, rounded down to the asset's base unit. */
                    currency?: string;
                    /** @description The payer's address, when the merchant knows it; else the payer gives it on the refund link (`refund_url`). */
                    address?: string;
                    /**
                     * Format: email
                     * @description The payer's email: the refund link is mailed there when SMTP is configured.
                     */
                    email?: string;
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    listRefunds: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Cursor: next_cursor of the previous page. */
                starting_after?: string;
                status?: "awaiting_address" | "queued" | "pending" | "broadcast" | "awaiting_payment" | "sent" | "failed";
                /** @description With a dashboard token: only this mode. */
                is_test?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RefundList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    getRefund: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    getRefundLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RefundLinkView"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    submitRefundAddress: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    address: string;
                    /** Format: email */
                    email?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RefundLinkView"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    exportRecords: {
        parameters: {
            query?: {
                /** @description CSV with a header row, or JSON Lines (one object a line). */
                format?: "csv" | "jsonl";
                /** @description Created at or after (payments: of the payment; deposits: of their payment). */
                from?: string;
                /** @description Created before. */
                to?: string;
                /** @description Payments and refunds: only this status. */
                status?: string;
                chain?: string;
                asset?: string;
                /** @description The mode; an API key exports its own, a dashboard token must say. */
                is_test?: "true" | "false";
            };
            header?: never;
            path: {
                /** @description What to export. */
                kind: "payments" | "deposits" | "sweeps" | "refunds" | "events";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CSV with a header row (`format=csv`) or one JSON object a line (`format=jsonl`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    getReport: {
        parameters: {
            query?: {
                /** @description Start (inclusive); default 30 days before `to`. */
                from?: string;
                /** @description End (exclusive); default now. */
                to?: string;
                /** @description The mode; an API key reports on its own, a dashboard token must say. */
                is_test?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Report"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    simulatePayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description `paid`: sends what is still due; `underpaid`: less; `overpaid`: more; `expired`: ends the window now. The deposit lands in the next simulated block and walks through confirmations at the chain’s pace.
                     * @enum {string}
                     */
                    outcome: "paid" | "underpaid" | "overpaid" | "expired";
                    /** @description The exact amount to send, in the payment’s asset (decimal string), instead of the outcome’s default. */
                    amount_native?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SimulatedPayment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    simulateCheckoutPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                payment_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description `paid`: sends what is still due; `underpaid`: less; `overpaid`: more; `expired`: ends the window now.
                     * @enum {string}
                     */
                    outcome: "paid" | "underpaid" | "overpaid" | "expired";
                };
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutSimulation"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    getSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    updateSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description `chain:ASSET` pairs from GET /v1/chains, e.g. `["base:USDC", "bitcoin:BTC"]`; null offers every pair. */
                    checkout_options?: string[] | null;
                    /** @description "" clears it. */
                    brand_name?: string;
                    /** @description `#rrggbb`; "" clears it. */
                    accent_color?: string;
                    /** @description "" clears it. */
                    support_email?: string;
                    /** @description "" clears it. */
                    support_url?: string;
                    /** @description Percent of the expected amount, as a decimal string: "0.5" is 0.5 %. 0 to 50. */
                    underpayment_tolerance_percent?: string;
                    /** @description An amount in each payment's own currency, as a decimal string (converted at the payment's locked rate). */
                    underpayment_tolerance_amount?: string;
                    /** @description Percent of the expected amount, as a decimal string: "0.5" is 0.5 %. 0 to 50. */
                    overpayment_tolerance_percent?: string;
                    /** @description An amount in each payment's own currency, as a decimal string (converted at the payment's locked rate). */
                    overpayment_tolerance_amount?: string;
                    /** @description 60 to 604800 seconds. */
                    default_expires_in?: number;
                    auto_refund_overpaid?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    getPayoutWallets: {
        parameters: {
            query?: {
                /** @description Required with a dashboard token: the mode whose wallets to read or set. A key acts in its own mode. */
                is_test?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayoutWallets"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    setPayoutWallets: {
        parameters: {
            query?: {
                /** @description Required with a dashboard token: the mode whose wallets to read or set. A key acts in its own mode. */
                is_test?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The whole set for the mode: every chain listed gets that address (checked against the chain’s format for the mode); a chain left out has no payout wallet afterwards. */
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayoutWallets"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    setLogo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    deleteLogo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    getReadiness: {
        parameters: {
            query?: {
                /** @description Required with a dashboard token: the mode whose wallets to read or set. A key acts in its own mode. */
                is_test?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    listPayoutWalletChanges: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayoutWalletChangeList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    listPaymentLinks: {
        parameters: {
            query?: {
                /** @description With a dashboard token: only this mode. */
                is_test?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentLinkList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
        };
    };
    createPaymentLink: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description What the payer sees as the heading of the link’s page. */
                    title: string;
                    /** @description A line or two under the title. */
                    description?: string;
                    /** @description A fixed amount in `currency` (decimal string); left out, the payer enters the amount. */
                    amount?: string;
                    /** @description A fiat code (USD, EUR, …) or an asset code. */
                    currency: string;
                    /** @description Left out, the payer picks the coin and network on the checkout. */
                    chain?: string;
                    asset?: string;
                    success_url?: string;
                    cancel_url?: string;
                    /** @enum {string} */
                    locale?: "en" | "es" | "de" | "fr" | "pt" | "zh" | "ar";
                    /** @description The mode: required with a dashboard token, the key’s own otherwise. */
                    is_test?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentLink"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    getPaymentLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentLink"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
        };
    };
    updatePaymentLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description What the payer sees as the heading of the link’s page. */
                    title?: string;
                    description?: string | null;
                    /** @description An inactive link’s page says so and creates no payment. */
                    active?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentLink"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
    payPaymentLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The amount, when the link lets the payer enter it. */
                    amount?: string;
                    /**
                     * Format: email
                     * @description The payer's email, if they give it: their receipt and any refund link are mailed there (as a payment's `customer_email`).
                     */
                    customer_email?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentLinkPayment"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
        };
    };
}
