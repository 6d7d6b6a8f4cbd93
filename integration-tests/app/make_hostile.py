#!/usr/bin/env python3
"""Adds the hostile part of the application (scenario 5) to an app directory.

    python3 make_hostile.py APP_DIR

Written at test time because the file names themselves are hostile:

  public/hostile.php        the entry point (tag "hostile"): a namespace and a
                            function with non-ASCII names, a function whose name
                            is not UTF-8 (PHP identifiers take any byte >= 0x80),
                            an anonymous class (its name holds a NUL), eval()'d
                            code (spaces in the frame name), closures defined in
                            a file whose path holds markup and quotes, and a
                            recursion ?depth=N deep (default 2000)
  public/<svg onload=alert(1)>'"&.php
                            an entry point whose name is markup: not a valid tag,
                            so its lines go only to the `all` logs
  public/all.php            an entry point named like the `all` log (refused as a tag)
  lib/<img src=x onerror=alert(1)>/a"b'c&d.php
                            closures defined there carry the path in their names

Every request burns about ?ms=N (default 25) milliseconds of CPU in the
innermost frames, so CPU-time samples land on the hostile names.
"""

import os
import sys

MARKUP_DIR = "<img src=x onerror=alert(1)>"
MARKUP_FILE = "a\"b'c&d.php"
MARKUP_ENTRY = "<svg onload=alert(1)>'\"&.php"

LIB = r"""<?php
// closures defined in a file whose path holds markup and quotes
namespace Hostile;

require_once dirname(__DIR__) . '/burn.php';

function closures(): array
{
    return [
        'markup' => static function (int $ms): int { return \Hostile\burn($ms); },
        'quotes' => static fn(int $ms): int => \Hostile\burn($ms),
    ];
}
"""

# Written as bytes: the function name \xff\xfe is not UTF-8.
HOSTILE = b"""<?php
declare(strict_types=1);

namespace Hostile\\\xc3\x9cn\xc3\xafc\xc3\xb8d\xc3\xa9;

require_once __DIR__ . '/../lib/""" + MARKUP_DIR.encode() + b"/" + MARKUP_FILE.encode().replace(b"'", b"\\'") + b"""';

function burn_\xe2\x80\xaeright_to_left(int $ms): int
{
    return \\Hostile\\burn($ms);
}

function bad_\xff\xfe_utf8(int $ms): int
{
    return \\Hostile\\burn($ms);
}

function recurse(int $depth, int $ms): int
{
    return $depth <= 0 ? \\Hostile\\burn($ms) : recurse($depth - 1, $ms) + 1;
}

$ms = max(1, min(200, (int)($_GET['ms'] ?? 25)));
$depth = max(0, min(50000, (int)($_GET['depth'] ?? 2000)));
$part = intdiv($ms, 6) + 1;

$anon = new class {
    public function spin(int $ms): int { return \\Hostile\\burn($ms); }
};
$anon->spin($part);
eval('\\\\Hostile\\\\burn(' . $part . ');');
foreach (\\Hostile\\closures() as $c) {
    $c($part);
}
burn_\xe2\x80\xaeright_to_left($part);
bad_\xff\xfe_utf8($part);
recurse($depth, $part);
echo "ok\\n";
"""

BURN = r"""<?php
// shared by the hostile entry points: busy CPU for $ms milliseconds
namespace Hostile;

function burn(int $ms): int
{
    $x = 0;
    $end = hrtime(true) + $ms * 1000000;
    while (hrtime(true) < $end) {
        $x = crc32((string)$x);
    }
    return $x & 1;
}
"""

ENTRY = r"""<?php
require_once __DIR__ . '/../lib/burn.php';
function render_<TAG>(int $ms): int { return \Hostile\burn($ms); }
render_<TAG>(max(1, min(200, (int)($_GET['ms'] ?? 25))));
echo "ok\n";
"""


def install(app_dir):
    pub = os.path.join(app_dir, "public")
    lib = os.path.join(app_dir, "lib")
    os.makedirs(os.path.join(lib, MARKUP_DIR), exist_ok=True)
    with open(os.path.join(lib, "burn.php"), "w") as f:
        f.write(BURN)
    with open(os.path.join(lib, MARKUP_DIR, MARKUP_FILE), "w") as f:
        f.write(LIB)
    with open(os.path.join(pub, "hostile.php"), "wb") as f:
        f.write(HOSTILE.replace(b"require_once __DIR__", b"require_once __DIR__ . '/../lib/burn.php';\nrequire_once __DIR__", 1))
    with open(os.path.join(pub, MARKUP_ENTRY), "w") as f:
        f.write(ENTRY.replace("<TAG>", "markup"))
    with open(os.path.join(pub, "all.php"), "w") as f:
        f.write(ENTRY.replace("<TAG>", "all"))
    return ["/hostile.php", "/hostile.php?depth=20000&ms=12", "/" + MARKUP_ENTRY, "/all.php"]


if __name__ == "__main__":
    for u in install(sys.argv[1]):
        print(u)
