<?php
// wptest-info.php: installed by every wptest server profile so a check can see
// what the server really is, not what its name claims: the PHP SAPI, the
// effective user, whether OPcache is on, the PID of the PHP process that
// answered and the protocol the request arrived on. One JSON object, fixed key
// order. It answers only this host itself (the checks and wptest's sampler
// run here): who PHP runs as is nobody else's business.
if (!preg_match('/^(127\.|::1$|::ffff:127\.)/', $_SERVER['REMOTE_ADDR'] ?? '')) {
    http_response_code(403);
    header('Content-Type: text/plain; charset=utf-8');
    header('Cache-Control: no-store');
    exit("Forbidden: this page answers only its own host.\n");
}
header('Content-Type: application/json');
header('Cache-Control: no-store');
$euid = function_exists('posix_geteuid') ? posix_geteuid() : -1;
$user = '';
if ($euid >= 0 && function_exists('posix_getpwuid')) {
    $pw = posix_getpwuid($euid);
    $user = is_array($pw) ? $pw['name'] : '';
}
$opcache = false;
if (function_exists('opcache_get_status')) {
    $st = @opcache_get_status(false);
    $opcache = is_array($st) && !empty($st['opcache_enabled']);
}
echo json_encode([
    'sapi'            => PHP_SAPI,
    'php_version'     => PHP_VERSION,
    'euid'            => $euid,
    'user'            => $user,
    'opcache'         => $opcache,
    'pid'             => getmypid(),
    'protocol'        => $_SERVER['SERVER_PROTOCOL'] ?? '',
    'https'           => !empty($_SERVER['HTTPS']) && $_SERVER['HTTPS'] !== 'off',
    'server_software' => $_SERVER['SERVER_SOFTWARE'] ?? '',
], JSON_UNESCAPED_SLASHES), "\n";
