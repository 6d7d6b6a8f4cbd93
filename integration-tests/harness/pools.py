"""The two sites of the pools test (one php-fpm master, two pools, one
opcache): the tenant's, which attacks the tables request tiers keep in
shared memory, and the victim's, whose configured tiers must go on
recording. Used by the extension's test
(php-excimer-sampler/tests/test_tiers_pools_cannot_starve_each_other.py)
and the fleet's scenario 12 (test_fleet.py), so both attack the same way."""

# The tenant's request n: with own=1, its configured tier method, a new copy
# with thousands of RETURNs in each request's file (opcache keeps every copy,
# each one patched); then 64 internal functions it has not named before as
# tiers of its own, by ini_set().
TENANT_PHP = r"""<?php
$n = (int)$_GET['n'];
$file = __DIR__ . "/gen/tenant$n.php";
if ($_GET['own'] ?? '') {
    require $file;
    (new Tenant)->f(-1);
}
$names = array_values(array_filter(get_defined_functions()['internal'],
    fn($f) => !str_contains($f, '\\') && $f !== 'str_pad'));
$list = [];
foreach (array_slice($names, 64 * $n, 64) as $f) {
    $list[] = "evil=$f";
}
$set = @ini_set('excimer.tiers', implode(',', $list));
echo json_encode(['ini_set' => $set !== false, 'status' => excimer_tiers_status()]);
"""

# The victim's request: its configured tiers, a user method and an internal
# function, each called once or twice.
VICTIM_PHP = r"""<?php
class Victim {
    public function work($x) { if ($x > 1) { return 2; } return str_pad('v', 3); }
}
$v = new Victim;
$v->work(0);
str_pad('w', 2);
echo json_encode(excimer_tiers_status());
"""


def tenant_method(returns):
    """The tenant's class Tenant with a method f of `returns` RETURNs."""
    body = "".join("        if ($x === %d) { return %d; }\n" % (i, i) for i in range(returns))
    return ("<?php\nclass Tenant {\n    public function f($x) {\n%s        return 0;\n    }\n}\n"
            % body)


def write_sites(root, attacks, returns, script="index.php"):
    """root/tenant/<script>, root/victim/<script> and the tenant's method in
    one file per attack (root/tenant/gen/tenant<n>.php), readable by the
    pools' users."""
    for site, php in (("tenant", TENANT_PHP), ("victim", VICTIM_PHP)):
        (root / site / "gen").mkdir(parents=True)
        (root / site / script.format(site=site)).write_text(php)
    for n in range(attacks):
        (root / "tenant" / "gen" / ("tenant%d.php" % n)).write_text(tenant_method(returns))
    root.chmod(0o755)
    for p in list((root / "tenant").rglob("*")) + list((root / "victim").rglob("*")):
        p.chmod(0o755 if p.is_dir() else 0o644)
