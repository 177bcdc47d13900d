#!/usr/bin/env python3
"""Writes orders/orders-1.json and orders/orders-2.json: 2,000 JSON orders, one per line.

Deterministic (a fixed seed), so the committed files can be made again byte for byte:
    python3 examples/data/make-orders.py
"""
import json
import os
import random
from datetime import datetime, timedelta, timezone
from decimal import Decimal

rng = random.Random(20261206)
customers = ["Ada Lovelace", "Zoë Müller", "José Núñez", "Grace Hopper", "李雷", "Søren Kierkegaard",
             "Edsger Dijkstra", "Barbara Liskov", "Ken Thompson", "Radia Perlman", "Alan Kay", "Frances Allen"]
skus = ["sku-%03d" % i for i in range(1, 41)]
notes = [None, None, None, "gift wrap", "leave at the door, \"fragile\"", "call first 📞", "deliver\nafter 6 pm"]
start = datetime(2026, 11, 1, tzinfo=timezone.utc)
here = os.path.dirname(os.path.abspath(__file__))

orders = []
for order_id in range(1, 2001):
    items = []
    for _ in range(rng.randint(1, 4)):
        items.append({"sku": rng.choice(skus), "qty": rng.randint(1, 5),
                      "price": str(Decimal(rng.randint(99, 19999)) / 100)})
    amount = sum(Decimal(i["price"]) * i["qty"] for i in items)
    placed = start + timedelta(seconds=order_id * 600 + rng.randint(0, 599), milliseconds=rng.randint(0, 999))
    orders.append(({"order_id": order_id, "customer": rng.choice(customers),
                    "placed_at": placed.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                    "amount": "AMOUNT", "currency": "EUR", "items": items, "note": rng.choice(notes)}, amount))

os.makedirs(os.path.join(here, "orders"), exist_ok=True)
for part in (1, 2):
    with open(os.path.join(here, "orders", "orders-%d.json" % part), "w", encoding="utf-8", newline="\n") as out:
        for order, amount in orders[(part - 1) * 1000:part * 1000]:
            line = json.dumps(order, ensure_ascii=False, separators=(", ", ": "))
            # an exact decimal, written as a JSON number with its two digits, never through a float
            out.write(line.replace('"amount": "AMOUNT"', '"amount": %s' % amount) + "\n")
