--TEST--
The engine's hooks are set in one place (src/hooks.c): no other source file of the extension assigns zend_compile_file, zend_compile_string, zend_interrupt_function, zend_execute_ex or zend_execute_internal, sets a user opcode handler, registers an observer or sets the heap's handlers (two features chaining the same pointer each on their own once crashed every second request)
--EXTENSIONS--
excimer
--INI--
pcre.jit=0
--FILE--
<?php
$patterns = [
    '/\bzend_(compile_file|compile_string|interrupt_function|execute_ex|execute_internal)\s*=[^=]/',
    '/\bzend_set_user_opcode_handler\s*\(/',
    '/\bzend_observer_\w+_register\s*\(/',
    '/\bzend_mm_set_custom_handlers\s*\(/',
];
$files = glob(__DIR__ . '/../src/*.[ch]');
var_dump(count($files) > 10);
$seen_in_hooks = 0;
foreach ($files as $file) {
    $code = preg_replace('~/\*.*?\*/~s', '', file_get_contents($file)); // comments aside
    foreach ($patterns as $pattern) {
        $n = preg_match_all($pattern, $code);
        if (basename($file) === 'hooks.c')
            $seen_in_hooks += $n;
        elseif ($n)
            echo basename($file), " sets an engine hook: $pattern\n";
    }
}
var_dump($seen_in_hooks >= 8);
?>
--EXPECT--
bool(true)
bool(true)
