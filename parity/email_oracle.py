"""The outside oracle for e-mail addresses: builds a corpus of a few thousand strings (hand-picked
edge classes plus seeded mutations), asks the real `pydantic.TypeAdapter(EmailStr)` (Pydantic 2.13,
email-validator 2.3) about each, and writes the answers to test/parity/email-answers.json, which
test/email/email-str.test.ts replays against the TypeScript port without Python.

    PARITY_PYTHON=<a venv with FastAPI>/bin/python npm run parity:email

The corpus is deterministic (fixed seed), so a regenerated fixture changes only if Pydantic or
email-validator answer differently.
"""
import json
import os
import random
import sys

import email_validator
import pydantic
from pydantic import EmailStr, TypeAdapter, ValidationError

SEED = 20261125
PREFIX = "value is not a valid email address: "
OUT = os.path.join(os.path.dirname(__file__), "..", "test", "parity", "email-answers.json")

# Characters worth trying anywhere: each class email-validator treats apart.
INTERESTING = [
    " ", "\t", "\n", "\r", "\x00", "\x07", "\x1f", "\x7f", "\x85", "\xa0", "\u00ad",
    ".", "..", "@", "\"", "\\", "<", ">", "(", ")", ",", ";", ":", "[", "]", "!", "#", "$", "%",
    "&", "'", "*", "+", "-", "/", "=", "?", "^", "_", "`", "{", "|", "}", "~",
    "é", "e\u0301", "\u0301", "\u0338", "ß", "ẞ", "ς", "İ", "\u212a", "\u212b", "Ａ", "ａ", "１",
    "＠", "﹫", "．", "。", "｡", "\u2024", "\ufe52", "\u2488", "\U0001f100",
    "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u202e", "\u2028", "\u2029", "\u3000", "\u2003",
    "\ue000", "\U000f0000", "\u0378", "\U0001e030", "\U0001fae8", "\ud800", "\udfff",
    "😀", "👍🏽", "日本", "한국", "ا", "א", "٣", "۳", "\u00b7", "\u0375", "\u05f3", "\u30fb", "क्\u200d", "\u094d",
    "\u037e", "\u1fef", "\u2126", "\u0340", "ﬁ", "㍿", "\u1e9e", "Ⅻ", "①", "𝒜", "\u0130", "\u03a3",
]

BASE_LOCALS = ["a", "jean.dupont", "x_y+tag", "o'brien", "user-1", "ünïcödé", "用户", "postmaster", "Sales"]
BASE_DOMAINS = ["example.com", "exemple.fr", "sub.domain.co.uk", "bücher.de", "日本.jp", "xn--bcher-kva.ch", "EXAMPLE.COM", "a.b"]


def hand_picked():
    out = [
        "", " ", "@", "a@", "@b.com", "a@b", "a@b.c", "a@b.c1", "a@b.1c", "a@1.2.3.4", "a@b.com",
        "a b@example.com", "Jean <a@example.com>", "<a@example.com>", "a..b@example.com", "a@exemple.fr.",
        ".a@example.com", "a.@example.com", "a@.example.com", "a@example..com", "a@-example.com", "a@example-.com",
        "a@ex-.ample.com", "a@ex.-ample.com", "a@ab--cd.com", "a@xn--cd.com", "a@XN--bcher-kva.ch", "a@xn--bcher-kva.CH",
        "a@xn--.com", "a@xn---.com", "a@xn--a.com", "a@xn--zca.com", "a@xn--ss-7ka.com", "a@xn--bcher-kvb.ch",
        "a@faß.de", "a@FASS.de", "a@ẞ.de", "a@bücher.de", "a@BÜCHER.DE", "a@münchen.de", "a@日本.jp", "a@日本。jp",
        "a@日本．jp", "a@日本｡jp", "a@ｅｘａｍｐｌｅ.ｃｏｍ", "a@example.com。", "a@⒈.com", "a@a\u2024b.com",
        "a@ا.com", "a@אב.com", "a@א1.com", "a@1א.com", "a@اב.com", "a@ا٣۳.com", "a@l\u00b7l.com", "a@a\u00b7l.com",
        "a@\u0375α.com", "a@α\u0375.com", "a@א\u05f3.com", "a@\u05f3א.com", "a@\u30fbカ.com", "a@\u30fba.com",
        "a@क्\u200dष.com", "a@a\u200db.com", "a@a\u200cb.com", "a@ب\u200cب.com", "a@\u0301a.com", "a@a\u0301.com",
        "a@example.invalid", "a@sub.example.invalid", "a@example.local", "a@localhost", "a@x.localhost",
        "a@example.onion", "a@example.test", "a@test", "a@example.arpa", "a@in-addr.arpa", "a@example.INVALID",
        "a@example.example", "a@example.org", "a@example.net", "a@mail.example.com",
        "a@[1.2.3.4]", "a@[1.2.3]", "a@[1.2.3.4.5]", "a@[1.2.3.256]", "a@[01.2.3.4]", "a@[1.2.3.4\n]", "a@[1..3.4]",
        "a@[IPv6:::1]", "a@[IPv6:1::2::3]", "a@[IPv6:1:2:3:4:5:6:7:8:9]", "a@[IPv6:12345::]", "a@[IPv6:g::]",
        "a@[IPv6:::1%eth0]", "a@[IPv6:::1%]", "a@[IPv6:::1.2.3.4]", "a@[IPv6:::1.2.3]", "a@[IPv6:1:2:3:4:5:6:7]",
        "a@[IPv6::1:2:3:4:5:6:7]", "a@[IPv6:1:2:3:4:5:6:7:]", "a@[IPv6:1/2]", "a@[IPv6:]", "a@[x:y]", "a@[xyz]", "a@[]",
        "a@[", "a@]", "a@[é:1]", "a@[1.2.3.4", "a@1.2.3.4]",
        '"a"@example.com', '"a b"@example.com', '"a,b"@example.com', '"a@b"@example.com', '"a\\"b"@example.com',
        '"a\\\\b"@example.com', '"a\nb"@example.com', '"a\x00b"@example.com', '"é"@example.com', '""@example.com',
        '"a"b@example.com', '"a"."b"@example.com', '"unterminated@example.com', '"a\u0301"@example.com',
        '"a\u00a0b"@example.com', '"a\u2028b"@example.com', '"a, b" <c@example.com>', '"Jean \\"Le\\" D" <c@example.com>',
        "Jean Dupont <a@example.com>", "Jean  Dupont   <a@example.com>", "  Jean <a@example.com>  ", "Jean<a@example.com>",
        "Jean. <a@example.com>", "J.D. <a@example.com>", "Jéan <a@example.com>", "Jean <a@example.com> x", "Jean <a@example.com",
        "Jean a@example.com>", "<a@example.com", "a@example.com>", "<<a@example.com>>", "<a@example.com>>", "<<a@example.com>",
        "Jean <>", "<>", "< a@example.com >", "Jean <a b@example.com>", "Jean <a@example.invalid>", "Jean <\"a\"@example.com>",
        "Jean\t<a@example.com>", "Jean\n<a@example.com>", "\"Jean\" <a@example.com>", "\"Je\"an <a@example.com>",
        "\"\" <a@example.com>", "Jean (x) <a@example.com>", "Jean <a@example.com> <b@example.com>", "a@example.com <b@example.com>",
        "\u3000a@example.com", "a@example.com\u3000", " a@example.com ", "\ta@example.com\n", "\n a@example.com \r\n",
        "\x1ca@example.com\x1f", "\x85a@example.com", "\ufeffa@example.com", "a@example.com\ufeff",
        "a＠example.com", "a﹫example.com", "a@@example.com", "a@b@example.com", "a<b@example.com", "a<@example.com",
        "a@example.com\u0301", "a\u0301@example.com", "\u0301a@example.com", "a<\u0338b@example.com", "a@\u0338example.com",
        "é@example.com", "e\u0301@example.com", "ǅ@example.com", "用户@例子.广告", "медведь@с-балалайкой.рф",
        "POSTMASTER@example.com", "PostMaster@example.com", "Info@Example.COM", "ftp@example.com", "www@EXAMPLE.com",
        "\U0001fae8@example.com", "a@\U0001fae8.com", "😀@example.com", "a@😀.com", "a@i❤.ws",
        "a@example.c", "a@example.co", "a@example.123", "a@123.com", "a@example.com-", "a@example.x1",
        "a" * 63 + "@example.com", "a" * 64 + "@example.com", "a" * 65 + "@example.com", "a" * 300 + "@example.com",
        "é" * 64 + "@example.com", "é" * 65 + "@example.com",
        "a@" + "b" * 63 + ".com", "a@" + "b" * 64 + ".com", "a@" + "ü" * 59 + ".com", "a@" + "ü" * 62 + ".com",
        "a@" + ".".join(["b" * 63] * 4), "a@" + ".".join(["b" * 63] * 3) + "." + "c" * 61,
        "a@" + ".".join(["b" * 63] * 3) + "." + "c" * 62, "a@" + ".".join(["b" * 49] * 5) + ".com",
        "a@" + ".".join(["ü" * 20] * 8) + ".com", "a@" + ".".join(["ü" * 10] * 14) + ".com",
        "x" * 2048, "x" * 2049, "a@" + "b" * 2046, "a" * 2040 + "@b.com", "Jean <" + "a" * 2030 + "@b.com>",
    ]
    # Total lengths 253/254/255 around the 254-octet limit, ASCII and multi-byte, several splits.
    for total in (252, 253, 254, 255, 256, 300):
        for local_len in (1, 10, 63, 64, 65, 100):
            domain_len = total - local_len - 1
            labels, rest = [], domain_len - 4
            while rest > 0:
                take = min(60, rest)
                labels.append("d" * take)
                rest -= take + 1
            if rest == 0:  # the last label used exactly the room: keep the length right
                pass
            domain = ".".join(labels + ["com"])
            out.append("l" * local_len + "@" + domain)
            out.append("é" * local_len + "@" + domain)
            out.append("l" * local_len + "@" + domain.replace("d", "ü", 3))
    return out


def positional(char):
    """The character at each place email-validator looks at separately."""
    return [
        f"a{char}b@example.com", f"{char}ab@example.com", f"ab{char}@example.com", f"ab@exa{char}mple.com",
        f"ab@{char}example.com", f"ab@example.com{char}", f"ab@example.c{char}om", f'"a{char}b"@example.com',
        f"Na{char}me <ab@example.com>", f'"Na{char}me" <ab@example.com>', f"<ab{char}@example.com>",
    ]


def mutate(rng, text):
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        pos = rng.randint(0, len(chars))
        if op < 0.45 or not chars:
            chars[pos:pos] = list(rng.choice(INTERESTING))
        elif op < 0.65:
            del chars[min(pos, len(chars) - 1)]
        elif op < 0.85:
            chars[min(pos, len(chars) - 1)] = rng.choice(INTERESTING)
        else:
            i = min(pos, len(chars) - 1)
            chars[i:i] = chars[i] * rng.randint(1, 70)
    return "".join(chars)


# Script blocks for internationalized labels: letters of several scripts (bidi ones included),
# fullwidth and compatibility characters UTS #46 maps, combining marks, Arabic-Indic digits.
IDN_BLOCKS = [(0xc0, 0x24f), (0x370, 0x3ff), (0x400, 0x4ff), (0x5d0, 0x5ea), (0x620, 0x64a), (0x660, 0x669), (0x6f0, 0x6f9),
              (0x900, 0x97f), (0xe00, 0xe5b), (0x1e00, 0x1eff), (0x1f00, 0x1fff), (0x3040, 0x30ff), (0x4e00, 0x4e80),
              (0xac00, 0xac80), (0xff01, 0xff5e), (0x2160, 0x2188), (0x3300, 0x33ff), (0xfb00, 0xfb4f), (0x300, 0x36f)]
IDN_SPECIAL = ["\u00b7", "\u0375", "\u05f3", "\u30fb", "ß", "ς", "\u094d", "\u0640", "\u3002", "\uff0e", "-", "0"]


def idn_label(rng):
    """A label of one script, sometimes with a context-rule character, or an A-label (valid, upper-case, or broken)."""
    if rng.random() < 0.25:
        text = "".join(chr(rng.randint(*rng.choice(IDN_BLOCKS[:14]))) for _ in range(rng.randint(1, 8)))
        label = "xn--" + text.encode("punycode").decode("ascii")
        if rng.random() < 0.2:
            label = label.upper()
        if rng.random() < 0.2:
            label = label[:-1] + rng.choice("abc9-")
        return label
    block = rng.choice(IDN_BLOCKS)
    chars = [chr(rng.randint(*block)) for _ in range(rng.randint(1, 10))]
    if rng.random() < 0.3:
        chars.insert(rng.randint(0, len(chars)), rng.choice(IDN_SPECIAL))
    return "".join(chars)


def idn_address(rng):
    local = rng.choice(["a", "Jean.Dupont", "ÜSER", "info", "ω", "x+y"])
    labels = [idn_label(rng) for _ in range(rng.randint(1, 3))]
    labels.append(rng.choice(["com", "de", "рф", "ΕΛ", "ＣＯＭ", "xn--p1ai", "中国"]))
    return local + "@" + rng.choice([".", ".", "\u3002"]).join(labels)


def representable(text):
    """False when a high surrogate is followed by a low one: JSON (and JavaScript) would make them one character."""
    return not any("\ud800" <= a <= "\udbff" and "\udc00" <= b <= "\udfff" for a, b in zip(text, text[1:]))


def corpus():
    rng = random.Random(SEED)
    items = hand_picked()
    for code in range(128):
        items.extend(positional(chr(code)))
    for char in INTERESTING:
        items.extend(positional(char))
    bases = [f"{l}@{d}" for l in BASE_LOCALS for d in BASE_DOMAINS]
    bases += [f"Jean Dupont <{b}>" for b in bases[:12]] + [f'"J. D." <{b}>' for b in bases[12:20]]
    items.extend(bases)
    for _ in range(1500):
        items.append(mutate(rng, rng.choice(bases)))
    for _ in range(600):
        items.append(idn_address(rng))
    seen, unique = set(), []
    for item in items:
        if item not in seen and representable(item):
            seen.add(item)
            unique.append(item)
    return unique


def main():
    adapter = TypeAdapter(EmailStr)
    answers = []
    for value in corpus():
        try:
            answers.append({"input": value, "normalized": adapter.validate_python(value)})
        except ValidationError as error:
            [item] = error.errors(include_url=False)
            # Every refusal is one value_error whose ctx.reason is its msg after the prefix: the
            # fixture keeps the msg only (the replay rebuilds the whole item from it).
            assert item["type"] == "value_error" and item["msg"] == PREFIX + item["ctx"]["reason"], item
            answers.append({"input": value, "msg": item["msg"]})
    about = {
        "about": "Pydantic %s TypeAdapter(EmailStr) (email-validator %s, Python %s) on %d strings: parity/email_oracle.py"
        % (pydantic.VERSION, email_validator.__version__, sys.version.split()[0], len(answers)),
    }
    with open(OUT, "w", encoding="utf-8") as f:
        # One answer a line: reviewable diffs when a regenerated fixture changes.
        f.write('{"about": %s,\n"answers": [\n' % json.dumps(about["about"]))
        f.write(",\n".join(json.dumps(a, ensure_ascii=True) for a in answers))
        f.write("\n]}\n")
    accepted = sum(1 for a in answers if "normalized" in a)
    print(f"{len(answers)} strings: {accepted} accepted, {len(answers) - accepted} refused -> {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
