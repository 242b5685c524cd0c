"""xqdb: Xiangqi game databases."""
