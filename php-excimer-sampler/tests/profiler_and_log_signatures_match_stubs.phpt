--TEST--
ExcimerProfiler, ExcimerLog, ExcimerLogEntry: signatures as declared in stubs/*.stub.php (tentative return types marked ~)
--EXTENSIONS--
excimer
--FILE--
<?php
foreach (['ExcimerProfiler', 'ExcimerLog', 'ExcimerLogEntry'] as $class) {
    $rc = new ReflectionClass($class);
    echo $class, ' implements ', implode(', ', $rc->getInterfaceNames()), "\n";
    foreach ($rc->getMethods() as $m) {
        $params = [];
        foreach ($m->getParameters() as $p) {
            $params[] = ($p->hasType() ? $p->getType() . ' ' : '') . '$' . $p->getName();
        }
        $ret = $m->hasReturnType() ? ': ' . $m->getReturnType()
            : ($m->hasTentativeReturnType() ? ': ~' . $m->getTentativeReturnType() : '');
        echo '  ', implode(' ', Reflection::getModifierNames($m->getModifiers())), ' ', $m->getName(),
            '(', implode(', ', $params), ')', $ret, "\n";
    }
}
?>
--EXPECT--
ExcimerProfiler implements 
  public setPeriod(float $period): ~void
  public setEventType(int $eventType): ~void
  public setMaxDepth(int $maxDepth): ~void
  public setFlushCallback($callback, int $maxSamples): ~void
  public clearFlushCallback(): ~void
  public start(): ~void
  public stop(): ~void
  public getLog(): ExcimerLog
  public flush(): ~ExcimerLog
ExcimerLog implements Iterator, Traversable, Countable, ArrayAccess
  final private __construct()
  public formatCollapsed(): ~string
  public getSpeedscopeData(): ~array
  public aggregateByFunction(): array
  public getEventCount(): ~int
  public current(): ~mixed
  public key(): ~mixed
  public next(): ~void
  public rewind(): ~void
  public valid(): ~bool
  public count(): ~int
  public offsetExists(mixed $offset): ~bool
  public offsetGet(mixed $offset): ~mixed
  public offsetSet(mixed $offset, mixed $value): ~void
  public offsetUnset(mixed $offset): ~void
ExcimerLogEntry implements 
  final private __construct()
  public getTimestamp(): ~float
  public getEventCount(): ~int
  public getTrace(): ~array
