<?php
// wptest-hello.php: a small PHP page for load tests from anywhere (Rasmus's
// ab test loads it from the load generators). It tells nothing about the
// server: wptest-info.php, which does, answers only the host itself.
header('Content-Type: text/plain; charset=utf-8');
echo "Hello from PHP.\n";
