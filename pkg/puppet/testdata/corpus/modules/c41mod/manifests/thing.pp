define c41mod::thing { notify { "c41 thing ${title}": } }
