results:  Optional[Union[List[Union[str, dict]], str]]
