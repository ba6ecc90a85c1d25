"""The spend ledger's feed (what each agent reports it cost) and the budgets."""
