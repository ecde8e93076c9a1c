node /^test/ { notify { "c22 regex ${0}": } }
node default { notify { "default": } }
