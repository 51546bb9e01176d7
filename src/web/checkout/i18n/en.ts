/**
 * The checkout's English messages: the reference catalog. Every other language is typed `Messages`, so a message
 * missing from any of them fails the typecheck. Parameters named `…Html` arrive escaped (and may hold markup); the
 * others are plain text the renderer escapes before use. Messages avoid plural forms by their wording.
 */
export const en = {
  checkout: 'Checkout',
  badge: {
    choose: 'Choose how to pay',
    pending: 'Awaiting payment',
    confirming: 'Confirming',
    completed: 'Paid',
    underpaid: 'Partly paid',
    overpaid: 'Paid',
    expired: 'Expired',
  },
  title: {
    choose: 'Choose how to pay',
    pending: 'Send your payment',
    confirming: 'Payment seen, confirming',
    completed: 'Payment complete',
    underpaid: 'Partial payment received',
    overpaid: 'Payment received',
    expired: 'This payment has expired',
    quote: 'The quoted rate has expired',
  },
  announce: {
    choose: 'Choose a coin and network to pay with.',
    pending: 'Waiting for your payment.',
    confirming: 'Your payment was seen on the network and is being confirmed.',
    completed: 'Payment complete. Thank you.',
    underpaid: 'A partial payment was received. Please send the remaining amount.',
    overpaid: 'Payment received. You sent more than was requested.',
    expired: 'This payment has expired. Do not send funds to this address.',
  },
  lead: {
    choose:
      'Pick the coin and network your wallet pays with. The amount is shown for each; its rate is locked once you pick.',
    pending:
      "Send the exact amount below to this payment's own deposit address. This page updates by itself once the payment arrives.",
    underpaid:
      'We received part of the amount. Send exactly the remaining amount below to the same address before the time runs out.',
    confirming: (p: { networkHtml: string; required: number }) =>
      `Your transaction is on ${p.networkHtml}. It is final after ${p.required} confirmations; you can keep this page open or close it.`,
    completed: (p: { networkHtml: string }) => `Thank you. Your payment is confirmed on ${p.networkHtml}.`,
    overpaid:
      'Your payment is confirmed. You sent more than was requested; ask the seller about the difference.',
    expired:
      'The time to pay ran out. <strong>Do not send funds to this address.</strong> Return to the shop to start a new payment.',
    expiredSent:
      'Already sent funds? A transaction that reached the network before the time ran out is still credited: this page then shows it. Funds that arrive later are recorded too, and the shop can see them; contact the shop with the payment number below.',
    expiredLate: (p: { amountHtml: string }) =>
      `We received ${p.amountHtml} after the time ran out. It was recorded and the shop can see it: contact the shop with the payment number below to settle it.`,
    quote:
      'The rate for this payment was locked for a limited time, and nothing arrived in that time. Get a new quote before you send anything.',
  },
  sendExactly: 'Send exactly',
  sendRemaining: 'Send the remaining',
  orderTotal: 'Order total',
  networkIs: 'Network:',
  sendOnly: (p: { assetHtml: string; networkHtml: string }) =>
    `Send only ${p.assetHtml} on ${p.networkHtml}. Other assets, or ${p.assetHtml} sent on another network, cannot be recovered.`,
  scanWithWallet: 'Scan with your wallet app',
  depositAddress: 'Deposit address',
  openInWallet: 'Open in wallet',
  copy: 'Copy',
  copied: 'Copied',
  copyAddress: 'Copy address',
  copyAmount: 'Copy amount',
  copiedAnnounce: (p: { what: string }) => `${p.what} copied`,
  qrLabel: (p: { amount: string; asset: string }) => `QR code to pay ${p.amount} ${p.asset}`,
  timeLeft: 'Time left',
  expiresAt: (p: { time: string }) => `Expires ${p.time}`,
  rateLockedFor: 'Rate locked for',
  newQuote: 'Get a new quote',
  confirmations: 'Confirmations',
  confirmationsOn: (p: { countHtml: string; networkHtml: string }) =>
    `${p.countHtml} confirmations on ${p.networkHtml}`,
  countOf: (p: { seen: string; required: string }) => `${p.seen} of ${p.required}`,
  requested: 'Requested',
  received: 'Received',
  remaining: 'Remaining',
  amount: 'Amount',
  confirmedSoFar: 'Confirmed so far',
  network: 'Network',
  amountPaid: 'Amount paid',
  value: 'Value',
  receivedInTime: 'Received',
  testNetwork: (p: { network: string }) => `${p.network} test network`,
  returnToShop: 'Return to the shop',
  cancelAndReturn: 'Cancel and return to the shop',
  payment: 'Payment',
  poweredBy: 'Secure checkout · powered by svc',
  language: 'Language',
  pickFinal: 'Your choice is final for this payment: its address belongs to that network.',
  help: 'Questions about this payment?',
  contactEmail: (p: { email: string }) => `Write to ${p.email}`,
  helpPage: 'Help page',
  viewReceipt: 'View receipt',
  receipt: 'Receipt',
  print: 'Print',
  paidTo: 'Paid to',
  paidAt: 'Paid on',
  transaction: 'Transaction',
  onExplorer: 'View on the block explorer',
  simulatedTransaction: 'Simulated on a test chain: no explorer',
  backToPayment: 'Back to the payment',
  linkAmount: (p: { currency: string }) => `Amount (${p.currency})`,
  linkEmail: 'Email for your receipt (optional)',
  continueToPayment: 'Continue to payment',
  linkInactiveTitle: 'This payment link is closed',
  linkInactiveText: 'The shop no longer takes payments through this link. Ask the shop for a new one.',
  testMode: 'Test mode',
  testBanner: (p: { networkHtml: string }) =>
    `— no real funds move. This is a simulated ${p.networkHtml} payment.`,
  testBannerChoose: '— no real funds move. Pick any option: the payment then runs on a simulated chain.',
  simulate: 'Simulate:',
  simulateLabel: 'Simulate the payer',
  payInFull: 'Pay in full',
  payTheRest: 'Pay the rest',
  underpay: 'Underpay',
  overpay: 'Overpay',
  letItExpire: 'Let it expire',
  simulatedSent: (p: { amount: string; asset: string }) =>
    `Simulated: ${p.amount} ${p.asset} sent. It lands in the next block.`,
  simulatedExpired: 'Simulated: the payment window ended.',
  simulationFailed: 'The simulation failed.',
  chooseSimulation: 'Choose one of the simulation buttons.',
  problem: {
    notFoundBadge: 'Not found',
    notFoundTitle: 'Payment not found',
    notFoundText:
      'We could not find a payment at this address. Check the link you were given, or go back to the shop and start again. Do not send funds until you see a payment page with an amount and an address.',
    invalidBadge: 'Invalid link',
    invalidTitle: 'This payment link is not valid',
    invalidText:
      'The link is incomplete or mistyped. Copy the whole link from the shop again, or start a new payment there.',
  },
};

export type Messages = typeof en;
