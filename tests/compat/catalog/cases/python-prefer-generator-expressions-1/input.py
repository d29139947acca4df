any([x for x in range(10)])
