{%- for g in groups %}
    // {{ g.comment }}
{%- for p in g.ports %}
    {{ p }}{% if !(loop.last && g.last) %},{% endif %}
{%- endfor %}
{%- endfor %}
