--TEST--
Reflection of every class, method, parameter, return type, constant and function equals the original's (php-excimer: recorded from Debian's 1.0.4 module, plus 1.2.5's getSpeedscopeData(), built from its source against PHP 8.2; our excimer_arclamp_* and excimer_tiers_* functions left out)
--EXTENSIONS--
excimer
--FILE--
<?php
// Every class, method, parameter, return type, constant and function of
// the extension, as Reflection shows them (our own additions left out).
$ext = new ReflectionExtension('excimer');
foreach ($ext->getConstants() as $name => $value) {
    echo "const $name = ", var_export($value, true), "\n";
}
foreach ($ext->getFunctions() as $f) {
    if (str_starts_with($f->getName(), 'excimer_arclamp_') || str_starts_with($f->getName(), 'excimer_tiers_')) {
        continue;   // ours: the native Arc Lamp transport, request tiers
    }
    echo 'function ', $f->getName(), '(', implode(', ', array_map(fn($p) => describe_param($p), $f->getParameters())), ')',
        describe_return($f), "\n";
}
function describe_param(ReflectionParameter $p): string {
    return ($p->hasType() ? $p->getType() . ' ' : '') . '$' . $p->getName()
        . ($p->isOptional() ? ' = ' . ($p->isDefaultValueAvailable() ? var_export($p->getDefaultValue(), true) : '?') : '');
}
function describe_return(ReflectionFunctionAbstract $m): string {
    return $m->hasReturnType() ? ': ' . $m->getReturnType()
        : ($m->hasTentativeReturnType() ? ': ~' . $m->getTentativeReturnType() : '');
}
$classes = $ext->getClassNames();
sort($classes);
foreach ($classes as $class) {
    $rc = new ReflectionClass($class);
    echo implode(' ', Reflection::getModifierNames($rc->getModifiers())), ' class ', $class,
        ' implements ', implode(', ', $rc->getInterfaceNames()), "\n";
    foreach ($rc->getReflectionConstants() as $c) {
        echo '  const ', $c->getName(), "\n";
    }
    foreach ($rc->getProperties() as $p) {
        echo '  property $', $p->getName(), "\n";
    }
    $methods = $rc->getMethods();
    usort($methods, fn($a, $b) => strcmp($a->getName(), $b->getName()));
    foreach ($methods as $m) {
        echo '  ', implode(' ', Reflection::getModifierNames($m->getModifiers())), ' ', $m->getName(),
            '(', implode(', ', array_map('describe_param', $m->getParameters())), ')', describe_return($m), "\n";
    }
}
?>
--EXPECT--
const EXCIMER_REAL = 0
const EXCIMER_CPU = 1
function excimer_set_timeout($callback, $interval)
 class ExcimerLog implements Iterator, Traversable, Countable, ArrayAccess
  final private __construct()
  public aggregateByFunction(): array
  public count(): ~int
  public current(): ~mixed
  public formatCollapsed()
  public getEventCount()
  public getSpeedscopeData()
  public key(): ~mixed
  public next(): ~void
  public offsetExists($offset): ~bool
  public offsetGet($offset): ~mixed
  public offsetSet($offset, $value): ~void
  public offsetUnset($offset): ~void
  public rewind(): ~void
  public valid(): ~bool
 class ExcimerLogEntry implements 
  final private __construct()
  public getEventCount()
  public getTimestamp()
  public getTrace()
 class ExcimerProfiler implements 
  public clearFlushCallback()
  public flush()
  public getLog(): ExcimerLog
  public setEventType($event_type)
  public setFlushCallback($callback, $max_samples)
  public setMaxDepth($max_depth)
  public setPeriod($period)
  public start()
  public stop()
 class ExcimerTimer implements 
  public getTime()
  public setCallback($callback)
  public setEventType($event_type)
  public setInterval($interval)
  public setPeriod($period)
  public start()
  public stop()
